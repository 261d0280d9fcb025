"""souveraine.toml: read with tomllib, checked against one schema, defaults filled in.

Every key has a default and a line of documentation here; docs/CONFIG.md is generated
from this table. A wrong type or an unknown key is one ConfigError naming file and key.
"""

import json
import math
import os
import stat
from collections import namedtuple
from pathlib import Path

from souveraine.errors import ConfigError

# A key of the schema: its type (or types), its default, its line of documentation, and
# whether a number must be above 0 (it divides). A named tuple: a command's start builds
# none of a dataclass's methods for it.
Key = namedtuple("Key", ("type", "default", "doc", "positive"), defaults=(False,))


def _model_keys() -> dict[str, Key]:
    return {
        "context_limit": Key(int, 200_000, "the model's context window, in tokens (above 0)", positive=True),
        "archivist_threshold": Key(float, 0.7, "context pressure (0–1) at which the archivist compresses"),
        "archivist_interval": Key(int, 100, "messages between archivist runs, whatever the pressure"),
        "chars_per_token": Key(float, 4.0, "offline token estimate: characters per token (above 0)", positive=True),
        "wake_share": Key(float, 0.1, "share of the context window a wake may fill"),
        "tokenizer": Key(str, "", "optional path to a tokenizer.json for exact counts"),
    }


SCHEMA: dict[str, dict[str, Key]] = {
    "project": {
        "id": Key(str, "", "this memory's project id (a uuid written by init)"),
        "name": Key(str, "", "a human name for the memory"),
        "model": Key(str, "default", "the [models.<name>] used when a command is not told one"),
        "identity": Key(str, "", "the default identity handle for remember, wake and elevate"),
    },
    "inference": {
        "endpoint": Key(str, "", "OpenAI-compatible base URL (e.g. http://localhost:11434/v1); empty: no model, extractive methods"),
        "model": Key(str, "", "the model name sent to the endpoint"),
        "api_key": Key(str, "", "a bearer token if the local server wants one"),
        "timeout": Key((int, float), 60, "seconds one request may take in all, its retries included"),
        "retries": Key(int, 2, "retries after a 5xx answer or a dropped connection (a timeout only against a remote host)"),
        "context": Key(int, 8192, "tokens the model server holds per request (llama.cpp --n_ctx, Ollama num_ctx); prompts are sized to fit"),
        "reflection_model": Key(str, "", "model for reflect (a witness model); default: model"),
        "archivist_model": Key(str, "", "model for archive (a smaller, faster one); default: model"),
    },
    "subconscious": {
        "n1_enabled": Key(bool, True, "run the N+1 subconscious after each response; false keeps only the journal"),
        "n1_trigger": Key(str, "every_response", "when persist runs its four functions: every_response or manual"),
        "inbox_enabled": Key(bool, True, "queue thoughts in inbox/ and surface them"),
        "tempos": Key(str, "detached", "how persist runs the reflect/archive it made due, after its commit: "
                                       "detached, inline or scheduler"),
    },
    "reflection": {
        "enabled": Key(bool, True, "run the N+25 reflection"),
        "message_interval": Key(int, 25, "messages between reflections"),
    },
    "archivist": {
        "enabled": Key(bool, True, "run the N+100 archivist"),
        "threshold": Key(float, 0.7, "context pressure at which to compress (the lower of this and the model's applies)"),
        "interval": Key(int, 100, "messages between archivist runs (the lower of this and the model's applies)"),
    },
    "schedule": {
        "digest": Key(str, "0 9 * * 1", "cron expression for the weekly digest; empty: off"),
        "defrag": Key(str, "0 3 1 * *", "cron expression for the monthly defrag; empty: off"),
        "doctor": Key(str, "", "cron expression for doctor alone (the quarterly refresh runs its audit); empty: off"),
        "learnings": Key(str, "0 5 1 * *", "cron expression for the monthly learnings from the unit reports; empty: off"),
        "refresh": Key(str, "0 4 1 1,4,7,10 *", "cron expression for the quarterly identity refresh and doctor's audit; empty: off"),
        "check": Key(str, "*/30 * * * *", "cron expression for the reflect/archive due-check; empty: off"),
        "sync": Key(str, "*/15 * * * *", "cron expression for sync with the git remote (skipped when there is none); empty: off"),
        "misfire_grace": Key(int, 3600, "seconds a missed run may still start late"),
        "on_busy": Key(str, "wait", "when the memory is locked: wait or skip"),
        "lock_timeout": Key((int, float), 30, "seconds a scheduled job waits for the lock"),
    },
    "privacy": {
        "never_share": Key(list, [], "phrases or globs of paths never put in a shared or low-bandwidth wake"),
    },
    "laws": {
        "append_only": Key(list, [], "extra append-only path globs, beyond the Cloister's"),
    },
    "git": {
        "author_name": Key(str, "Souveraine", "commit author when git has none configured (cron, CI)"),
        "author_email": Key(str, "souveraine@localhost", "commit email when git has none configured"),
        "lock_timeout": Key((int, float), 30, "seconds a command waits its turn (first come, first served) for others to finish"),
    },
    "recall": {
        "half_life_days": Key((int, float), 30, "recency half-life for episodic items"),
        "semantic": Key((bool, str), "auto", "rank by meaning too, with sentence vectors (the static encoder,"
                                             " or MiniLM with the semantic extra): true, false, or \"auto\": when a"
                                             " warm process has the encoder, never waiting for it; auto and true start"
                                             " a recall server in the background for the next query (docs/RECALL.md)"),
        "encoder": Key(str, "auto", "the sentence encoder: \"auto\" (MiniLM where the semantic extra is installed,"
                                    " else the static one), \"static\" or \"minilm\" (docs/RECALL.md)"),
        "server_idle_minutes": Key((int, float), 30, "a recall server (souveraine serve) exits after this long"
                                                     " without a query (above 0)", positive=True),
    },
    "wake": {
        "inner_voice_lines": Key(int, 12, "lines of the inner voice's tail in a wake"),
        "recent_items": Key(int, 10, "recent memories listed in a wake"),
    },
    "doctor": {
        "system_token_budget": Key(int, 15_000, "tokens system/ may hold before doctor warns"),
        "max_note_bytes": Key(int, 24_000, "a note larger than this is a dumping ground"),
    },
    "forks": {
        "divergence_threshold": Key(int, 200, "changed lines in system/ and identities/ above which a fork is not integrated"),
    },
    "events": {
        "command": Key(str, "", "a shell command run after each commit for each event (JSON on stdin)"),
    },
}

DYNAMIC = {"models": _model_keys()}


class Config:
    """A checked souveraine.toml: ``config["reflection"]["message_interval"]``."""

    def __init__(self, data: dict[str, object], path: Path | None = None):
        self.path = path
        self.data = data

    def __getitem__(self, section: str) -> dict[str, object]:
        return self.data[section]

    def get(self, section: str, key: str) -> object:
        return self.data[section][key]

    def model(self, name: str | None = None) -> dict[str, object]:
        """The [models.<name>] table with defaults; the project's model when no name is given."""
        name = name or self.data["project"]["model"]
        models = self.data["models"]
        if name not in models:
            if name == "default" or not models:
                return {**{k: v.default for k, v in _model_keys().items()}, "name": name}
            known = ", ".join(sorted(models))
            raise ConfigError(f"no model '{name}' in {self._where()} (known: {known}); add a [models.{name}] table")
        return {**models[name], "name": name}

    def _where(self) -> str:
        return str(self.path) if self.path else "souveraine.toml"


def load(path: Path, cache: Path | None = None) -> Config:
    """The checked configuration at ``path``.

    Parsing TOML costs more than a search's own start, so the checked table is kept: in this
    process (a server loads it at every call) and, given ``cache`` (a JSON file in the
    memory's .souveraine/), between processes. Either is used only for the very text it was
    read from, checked by this version of the schema; the file is read every time.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: not found; run 'souveraine init' to make a memory") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save it as UTF-8") from None
    known = _loaded.get(str(path))
    if known is None or known[0] != text:
        data = _kept(cache, text)
        if data is None:
            data = validate(_parsed(text, path), str(path))
            _keep(cache, text, data)
        known = _loaded[str(path)] = (text, data)
    return Config(_copy(known[1]), Path(path))


_loaded: dict[str, tuple[str, dict]] = {}      # path -> (its text, the checked table)


def _parsed(text: str, path: Path) -> dict[str, object]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file") from None


def _schema_mark() -> str:
    """What tells this schema from another version's: the package's version and this file's."""
    from souveraine import __version__

    found = os.stat(__file__)
    return f"{__version__}:{found.st_size}:{found.st_mtime_ns}"


def _kept(cache: Path | None, text: str) -> dict[str, object] | None:
    """The checked table ``cache`` holds for ``text``; None when it holds another or none."""
    if cache is None:
        return None
    try:
        kept = json.loads(Path(cache).read_text(encoding="utf-8"))
        if kept["text"] == text and kept["schema"] == _schema_mark():
            return kept["data"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _keep(cache: Path | None, text: str, data: dict[str, object]) -> None:
    """Write the cache, when its folder is there and is no link (a cache is never worth an error)."""
    if cache is None:
        return
    cache = Path(cache)
    try:
        if not stat.S_ISDIR(os.lstat(cache.parent).st_mode):
            return
        temp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        try:
            temp.write_text(json.dumps({"schema": _schema_mark(), "text": text, "data": data}), encoding="utf-8")
            os.replace(temp, cache)
        finally:
            temp.unlink(missing_ok=True)
    except OSError:
        pass


def _copy(value):
    """A copy each caller may change (sections are dicts of plain values and lists)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return list(value) if isinstance(value, list) else value


def validate(raw: dict[str, object], where: str = "souveraine.toml") -> dict[str, object]:
    """Check every key and fill in defaults; raise one ConfigError at the first problem."""
    data: dict[str, object] = {}
    for section, value in raw.items():
        if section not in SCHEMA and section not in DYNAMIC:
            raise ConfigError(f"{where}: unknown section [{section}]; known: {', '.join(sorted([*SCHEMA, *DYNAMIC]))}")
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: '{section}' must be a table [{section}]")
    for section, keys in SCHEMA.items():
        data[section] = _section(raw.get(section, {}), keys, section, where)
    data["models"] = {
        name: _section(table, DYNAMIC["models"], f"models.{name}", where)
        for name, table in _tables(raw.get("models", {}), "models", where).items()
    }
    return data


def defaults() -> dict[str, object]:
    return validate({})


def _tables(value: dict[str, object], section: str, where: str) -> dict[str, dict]:
    for name, table in value.items():
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: [{section}] must hold tables like [{section}.{name}], not '{name} = …'")
    return value


def _section(table: dict[str, object], keys: dict[str, Key], name: str, where: str) -> dict[str, object]:
    out = {}
    for key, value in table.items():
        if key not in keys:
            raise ConfigError(f"{where}: unknown key '{key}' in [{name}]; known: {', '.join(keys)}")
        out[key] = _check(value, keys[key], f"{name}.{key}", where)
    for key, spec in keys.items():
        out.setdefault(key, list(spec.default) if isinstance(spec.default, list) else spec.default)
    return out


def _check(value: object, spec: Key, dotted: str, where: str) -> object:
    expected = spec.type if isinstance(spec.type, tuple) else (spec.type,)
    if float in expected and isinstance(value, int) and not isinstance(value, bool):
        value = float(value) if expected == (float,) else value
    if isinstance(value, bool) and bool not in expected:
        ok = False
    else:
        ok = isinstance(value, expected)
    if not ok:
        names = " or ".join(_type_name(t) for t in expected)
        raise ConfigError(f"{where}: '{dotted}' must be {names}, not {_type_name(type(value))} ({value!r})")
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: '{dotted}' must be a list of strings")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: '{dotted}' must be a finite number, not {value}")
    if spec.positive and not value > 0:
        raise ConfigError(f"{where}: '{dotted}' must be above 0, not {value!r}")
    return value


def _type_name(t: type) -> str:
    return {bool: "true/false", int: "an integer", float: "a number", str: "a string", list: "a list"}.get(t, t.__name__)
