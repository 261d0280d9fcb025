"""Scripted conversations: turns written through store.journal and committed, as persist would."""

import json
import re
import shutil
from datetime import datetime, timedelta

import pytest

from souveraine.store import journal
from souveraine.store.memory import Memory


def say(memory, when: str, turns: list[tuple[str, str]], session: str = "s1", step: int = 60, change=None) -> list[str]:
    """Append ``(role, text)`` turns from ``when`` (ISO), one every ``step`` seconds, and commit
    them (or add them to ``change``); their block ids."""
    if change is None:
        with memory.change(f"chore(journal): {len(turns)} turns") as own:
            return say(memory, when, turns, session, step, own)
    at = datetime.fromisoformat(when)
    relpath = journal.day_path(at.date())
    full = memory.root / relpath
    existing = full.read_text(encoding="utf-8") if full.exists() else ""
    text, taken, blocks = "" if existing else journal.header(at.date()), journal.block_ids(existing), []
    for role, words in turns:
        block = journal.block_id(at, role, words, session, taken)
        text += journal.render(at, role, words, session, block)
        taken.add(block)
        blocks.append(block)
        at += timedelta(seconds=step)
    change.append(relpath, text)
    return blocks


def filler(n: int, topic: str = "the garden") -> list[tuple[str, str]]:
    """``n`` plain turns, alternating speakers, about nothing in particular."""
    lines = [
        "the tomatoes need water in the evening when the soil is dry",
        "the compost heap is warm and the worms are busy under the leaves",
        "we talked about the weather and the light over the hedges",
        "the seedlings are slow this year because the nights are still cold",
        "the path by the shed needs sweeping after the wind",
    ]
    return [("user" if i % 2 == 0 else "assistant", f"About {topic}: {lines[i % len(lines)]}, as usual (note {i}).")
            for i in range(n)]


def configure(memory, section: str, **values) -> None:
    """Set keys of one [section] of the memory's souveraine.toml (adding it if missing) and commit."""
    text = memory.read_text("souveraine.toml")
    header = f"[{section}]"
    if header not in text:
        text += f"\n{header}\n"
    for key, value in values.items():
        line = f"{key} = {json.dumps(value) if not isinstance(value, bool) else str(value).lower()}"
        start = text.index(header) + len(header)
        end = text.find("\n[", start)
        end = len(text) if end < 0 else end
        body = text[start:end]
        body = re.sub(rf"(?m)^{key} = .*$", line, body) if re.search(rf"(?m)^{key} = ", body) else f"\n{line}{body}"
        text = text[:start] + body + text[end:]
    with memory.change("chore(memory): configure") as change:
        change.write("souveraine.toml", text)
    memory.__dict__.pop("config", None)


def prebuilt(tmp_path_factory, build) -> Memory:
    """A memory made once and shaped by ``build(memory, monkeypatch)``, for many tests to copy.

    Commits run three hooks each; building a long conversation once per module keeps the
    suite fast. The environment is isolated as tests/conftest.py isolates every test.
    """
    from souveraine.bootstrap import init

    base = tmp_path_factory.mktemp("prebuilt")
    home = base / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("HOME", home), ("XDG_CONFIG_HOME", home / ".config"),
                            ("GIT_CONFIG_GLOBAL", home / ".gitconfig"), ("GIT_CONFIG_NOSYSTEM", "1")):
            patch.setenv(name, str(value))
        for name in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            patch.delenv(name, raising=False)
        memory = Memory(init(base / "memory", identity="ada").root)
        build(memory, patch)
    return memory


def copy_of(memory: Memory, tmp_path) -> Memory:
    """A private copy of a prebuilt memory, its hooks pointing at its own .git."""
    from souveraine.laws import install

    root = shutil.copytree(memory.root, tmp_path / "memory", symlinks=True)
    install.install(root)
    return Memory(root)


def invoke_on(memory: Memory):
    """``invoke("reflect", "--json")`` against ``memory``, as the ``invoke`` fixture does."""
    from click.testing import CliRunner

    from souveraine.cli import cli

    def run(*args):
        return CliRunner().invoke(cli, ["--memory", str(memory.root), *args], catch_exceptions=False)

    return run
