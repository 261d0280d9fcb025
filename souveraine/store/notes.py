"""Notes: Markdown with YAML frontmatter, read and written round-trip.

The file is split at python-frontmatter's fence (its pattern, without importing it: persist
writes notes after every turn); ruamel.yaml keeps key order and comments, so a person's
edits in Obsidian survive every tool's rewrite. Frontmatter values stay
Obsidian properties: text, numbers, booleans, dates, and lists of those.
"""

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from souveraine.errors import NoteError
from souveraine.language import patterns
from souveraine.store.atomic import atomic_write

_FENCE = patterns.compile(r"\A---[ \t]*\r?\n")


@dataclass
class Note:
    meta: object = field(default_factory=dict)   # a ruamel CommentedMap once read
    body: str = ""
    path: Path | None = None

    def get(self, key: str, default: object = None) -> object:
        return self.meta.get(key, default) if self.meta else default

    def __getitem__(self, key: str) -> object:
        return self.meta[key]

    def __setitem__(self, key: str, value: object) -> None:
        if not self.meta:
            self.meta = _yaml().map()
        self.meta[key] = value


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.map = _new_map
    return yaml


def _new_map():
    from ruamel.yaml.comments import CommentedMap

    return CommentedMap()


def _load(fm: str):
    data = _yaml().load(fm)
    return data if data is not None else _new_map()


def _export(metadata) -> str:
    stream = io.StringIO()
    _yaml().dump(metadata, stream)
    return stream.getvalue().rstrip("\n")


def parse(text: str, path: Path | None = None) -> Note:
    """Split ``text`` into frontmatter and body; NoteError names the line that fails."""
    text = text.replace("\r\n", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    if not _FENCE.match(text):
        return Note(_new_map(), text, path)
    try:
        _, fm, body = _BOUNDARY.split(text, 2)
    except ValueError:
        raise NoteError(f"{path or 'note'}:1: frontmatter opened with '---' is never closed; add a closing '---' line") from None
    try:
        meta = _load(fm)
    except Exception as exc:  # ruamel raises many kinds; all mean "does not parse"
        raise NoteError(f"{path or 'note'}:{_error_line(exc)}: frontmatter does not parse ({_first_line(exc)}); fix the YAML") from None
    if not hasattr(meta, "items"):
        raise NoteError(f"{path or 'note'}:2: frontmatter must be a mapping of properties, not {type(meta).__name__}")
    return Note(meta, body[1:] if body.startswith("\n") else body, path)


def parse_quick(text: str, path: Path | None = None) -> Note:
    """``parse`` for reading many notes at once (doctor, defrag): the properties as plain
    values read by libyaml, twenty times faster than the round-trip reader. Never write the
    result back (comments and quoting are not kept); a note libyaml cannot read, or reads
    differently (a duplicate key), gets ``parse``'s verdict."""
    text = text.replace("\r\n", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    if not _FENCE.match(text):
        return Note({}, text, path)
    parts = _BOUNDARY.split(text, 2)
    if len(parts) < 3:
        return parse(text, path)
    meta = _typed(flat(parts[1]))
    if meta is None:
        try:
            meta = _quick_loader()(parts[1]) if parts[1].strip() else {}
        except Exception:  # anything libyaml refuses or reads otherwise: the round-trip reader decides
            return parse(text, path)
    if not isinstance(meta, dict):
        return parse(text, path)
    body = parts[2]
    return Note(meta, body[1:] if body.startswith("\n") else body, path)


_BOUNDARY = patterns.compile(r"^-{3,}\s*$", re.MULTILINE)   # python-frontmatter's fence, as parse splits


# Flat properties: each line a key with a one-line value (quoted, plain or `[]`) or with
# none and then a list's items; no tab, no control character, no key twice. A strict subset
# of YAML that it reads as one mapping, read line by line at a tenth of libyaml's cost (the
# laws read one block per memory ever written, doctor one per note). Anything else (a flow
# collection, a value an indicator opens, `: ` or ` #` inside a plain value) goes to a parser.
# Greedy, the trailing spaces stripped after: a lazy value tried every length (2x the cost).
_FLAT_KEY = patterns.compile(r"([A-Za-z0-9_][A-Za-z0-9_-]*):(?: +(.*))?")
_FLAT_ITEM = patterns.compile(r"( *)- +(.*)")
_QUOTED = patterns.compile(r"'(?:[^']|'')*'|\"[^\"\\]*\"")
# What is not printable, named itself: the printable ranges' complement took re 7 ms to compile
# (it visits every BMP code point of a range), paid by each command that reads a note.
_UNREADABLE = patterns.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_INDICATORS = "-?:,[]{}#&*!|>'\"%@`"


class Plain(str):
    """A plain scalar as written, which YAML may read as a number, a date, a boolean or null."""


def flat(yaml_text: str) -> dict[str, object] | None:
    """The properties of a frontmatter's YAML when it is flat: quoted values unquoted, plain
    ones as ``Plain``, lists of them, None for a key with no value; None when not flat."""
    if _UNREADABLE.search(yaml_text):
        return None
    found: dict[str, object] = {}
    bare: list[str] = []                  # keys with no value: a list, if items follow
    items, indent = None, None
    for line in yaml_text.split("\n"):
        if not line.strip(" ") or line.lstrip(" ").startswith("#"):
            continue
        item = _FLAT_ITEM.fullmatch(line)
        if item:
            raw = item[2].rstrip(" ")
            value = _flat_scalar(raw) if raw else None
            if items is None or indent not in (None, item[1]) or value is None:
                return None
            items.append(value)
            indent = item[1]
            continue
        key = _FLAT_KEY.fullmatch(line)
        if not key or key[1] in found:
            return None
        raw = (key[2] or "").rstrip(" ")
        items, indent = (None, None) if raw else ([], None)
        found[key[1]] = _flat_scalar(raw) if raw else items
        if found[key[1]] is None:
            return None
        if not raw:
            bare.append(key[1])
    for key in bare:
        found[key] = found[key] or None
    return found


def _flat_scalar(raw: str) -> object:
    if raw[0] in "'\"":
        if not _QUOTED.fullmatch(raw):
            return None
        return raw[1:-1].replace("''", "'") if raw[0] == "'" else raw[1:-1]
    if raw == "[]":
        return []
    if raw[0] in _INDICATORS or ": " in raw or " #" in raw or raw.endswith(":"):
        return None
    return Plain(raw)


def _typed(meta: dict[str, object] | None) -> dict[str, object] | None:
    """Flat properties with their plain values read as libyaml reads them (``_quick_loader``);
    None when a key is not plain text."""
    if meta is None or any(_resolves(k) for k in meta):
        return None
    return {k: _value(v) for k, v in meta.items()}


def _value(value: object) -> object:
    if isinstance(value, list):
        return [_value(v) for v in value]
    if isinstance(value, Plain):
        return _quick_loader()(str(value)) if _resolves(value) else str(value)
    return value


def _resolves(plain: str) -> bool:
    """Whether YAML reads ``plain`` as something other than text (a number, a date, null…)."""
    first = plain[:1]
    resolvers = _RESOLVERS.get(first)
    if resolvers is None:       # most first letters have none: a description is text at once
        _quick_loader()
        table = _LOADER_CLASS.yaml_implicit_resolvers
        resolvers = _RESOLVERS[first] = tuple(rx for _, rx in (*table.get(first, ()), *table.get(None, ())))
    return any(rx.match(plain) for rx in resolvers)


_LOADER = None
_LOADER_CLASS = None
_RESOLVERS: dict[str, tuple] = {}


def _quick_loader():
    """libyaml's reader resolving plain scalars as YAML 1.2 does (ruamel's reading): only
    true/false are booleans, no base-60 numbers; a duplicate key is refused."""
    global _LOADER, _LOADER_CLASS
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class Loader(base):
            yaml_implicit_resolvers = {
                first: [(tag, rx) for tag, rx in resolvers
                        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
                for first, resolvers in base.yaml_implicit_resolvers.items()}

            def construct_mapping(self, node, deep=False):
                keys = [k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)]
                if len(keys) != len(set(keys)):
                    raise ValueError("duplicate key")
                return super().construct_mapping(node, deep)

        Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                     list("tTfF"))
        Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
                                     list("-+0123456789"))
        Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
            list("-+.0123456789"))
        Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
        _LOADER_CLASS = Loader
        _LOADER = lambda stream: yaml.load(stream, Loader=Loader)  # noqa: E731
    return _LOADER


def _construct_int(loader, node) -> int:
    value = loader.construct_scalar(node)
    if value.startswith(("0o", "0x")):
        return int(value[2:], 8 if value[1] == "o" else 16)
    return int(value)


def read(path: Path) -> Note:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise NoteError(f"{path}: not UTF-8 text; save it as UTF-8") from None
    return parse(text, path)


_SIMPLE = patterns.compile(r"^([A-Za-z0-9_-]+):[ \t]+([^\s\[{|>&*!#'\"][^#]*?|'[^']*'|\"[^\"]*\")[ \t]*$")


def peek(path: Path, *keys: str) -> dict[str, object]:
    """Simple scalar properties of a note, without loading a YAML parser (for hot paths).

    Falls back to a full parse when a wanted key holds anything but a plain scalar.
    """
    found: dict[str, object] = {}
    with open(path, encoding="utf-8") as handle:
        if handle.readline().rstrip() != "---":
            return found
        for line in handle:
            if line.rstrip() == "---":
                break
            key = line.split(":", 1)[0]
            if key not in keys:
                continue
            match = _SIMPLE.match(line.rstrip("\n"))
            if not match:
                meta = read(path).meta
                return {k: meta[k] for k in keys if k in meta}
            found[key] = match[2].strip("'\"") if match[2][:1] in "'\"" else match[2].strip()
    return found


def properties(text: str) -> dict[str, object] | None:
    """Every property of a note whose frontmatter is flat — plain or quoted scalars, and lists
    of them — without loading a YAML parser (for hot paths); None when it needs the parser.

    Scalars come back as text, as ``peek`` gives them; ``[]`` is an empty list.
    """
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    if not text.startswith("---\n"):
        return {}
    found: dict[str, object] = {}
    items: list | None = None
    for line in text[4:].split("\n"):
        if line.rstrip() == "---":
            return found
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith(("  - ", "- ")) and items is not None:
            value = _scalar(line.split("- ", 1)[1])
            if value is None:
                return None
            items.append(value)
            continue
        key, colon, rest = line.partition(":")
        if not colon or not _PROPERTY.fullmatch(key):
            return None
        rest = rest.strip()
        items = None
        if not rest:
            items = found[key] = []
        elif rest == "[]":
            found[key] = []
        else:
            value = _scalar(rest)
            if value is None:
                return None
            found[key] = value
    return None


_PROPERTY = patterns.compile(r"[A-Za-z0-9_-]+")


def _scalar(raw: str) -> str | None:
    raw = raw.strip()
    if raw.startswith("'"):
        return raw[1:-1].replace("''", "'") if len(raw) > 1 and raw.endswith("'") and "'" not in raw[1:-1].replace("''", "") else None
    if raw.startswith('"'):
        return raw[1:-1] if len(raw) > 1 and raw.endswith('"') and not re.search(r'[\\"]', raw[1:-1]) else None
    if not raw or raw[0] in "[]{}|>&*!%@`,?:#-" and raw != "-" or raw.startswith("- "):
        return None
    value = raw.split(" #", 1)[0].rstrip()
    return value if value and ": " not in value else None


def dumps(note: Note) -> str:
    body = note.body
    if not note.meta:
        return body
    return f"---\n{_export(note.meta)}\n---\n{body}"


def write(path: Path, note: Note) -> None:
    atomic_write(Path(path), dumps(note))


def new(meta: dict[str, object], body: str = "") -> Note:
    """A note with properties in the given order."""
    mapping = _new_map()
    for key, value in meta.items():
        mapping[key] = value
    return Note(mapping, body)


def _error_line(exc: Exception) -> int:
    # The YAML handed to ruamel starts with the newline ending the opening fence, so its
    # 0-based line numbers are already the file's 1-based ones.
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 1 if mark is not None else 2


def _first_line(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    return (problem or str(exc).splitlines()[0] if str(exc) else type(exc).__name__).strip()
