"""Helpers for the fork tests: grow files, snapshot what a parent holds."""

from pathlib import Path

import pytest

from souveraine.store.memory import Memory


def grow(memory: Memory, relpath: str, lines: int, word: str = "line", message: str = "feat(memory): grow a note") -> str:
    """Append ``lines`` lines to ``relpath`` in one commit; returns the commit."""
    text = "".join(f"- {word} {i}\n" for i in range(lines))
    with memory.change(message) as change:
        if memory.exists(relpath):
            change.append(relpath, text)
        else:
            change.write(relpath, f"---\ndescription: {word}\n---\n{text}")
    return change.sha


def snapshot(root: Path, skip: tuple[str, ...] = ("reference/forks/",)) -> dict[str, bytes]:
    """Every file of a memory's work tree (not .git, not the cache), by relative path."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".git/", ".souveraine/")) and not rel.startswith(skip):
            out[rel] = path.read_bytes()
    return out


@pytest.fixture
def set_threshold(memory):
    def apply(lines: int) -> None:
        text = memory.read_text("souveraine.toml") + f"\n[forks]\ndivergence_threshold = {lines}\n"
        with memory.change("chore(memory): set the divergence threshold") as change:
            change.write("souveraine.toml", text)
        memory.__dict__.pop("config", None)

    return apply
