"""The notes an agent edits: a move keeps every link working, both the links to the note and its own."""

import pytest

from souveraine.agents import notebook
from souveraine.care import links
from souveraine.errors import UsageError
from tests.support import assert_clean


def broken(memory) -> list[tuple[str, str]]:
    vault = links.Vault.of(memory.root)
    return [(path, link.raw) for path in vault.notes if not memory.append_only(path)
            for link in vault.links(path) if not vault.resolve(link, path).ok]


def test_a_moved_note_keeps_its_own_relative_links(memory):
    """From its new folder, guide's 'setup.md' would name another note: it is pointed back at its own."""
    notebook.write(memory, "reference/setup.md", "# Setup\n\nInstall it.\n", "How to set it up.")
    notebook.write(memory, "reference/old/setup.md", "# Setup\n\nThe old way.\n", "How it was set up once.")
    notebook.write(memory, "reference/guide.md", "# Guide\n\nFirst [the setup](setup.md#setup), then "
                   "[[reference/setup|set up]]; back to [this guide](guide.md).\n", "The guide.")
    before = broken(memory)
    moved = notebook.move(memory, "reference/guide.md", "reference/old/guide.md")
    text = memory.read_text("reference/old/guide.md")
    assert "[the setup](../setup.md#setup)" in text and "[[reference/setup|set up]]" in text
    assert "[this guide](guide.md)" in text, "a link to itself still names itself"
    assert moved["links_updated"] == ["reference/old/guide.md"] and moved["links_commit"]
    assert broken(memory) == before
    assert memory.git("log", "-2", "--format=%s").stdout.split("\n")[:2] == [
        "fix(memory): links follow reference/guide.md to reference/old/guide.md",
        "refactor(memory): move reference/guide.md to reference/old/guide.md"]
    assert_clean(memory.root)


def test_a_note_without_relative_links_moves_in_one_commit(memory):
    notebook.write(memory, "people/lea.md", "# Lea\n\nSee [[domains/family]].\n", "Lea, my sister.")
    moved = notebook.move(memory, "people/lea.md", "people/family/lea.md")
    assert moved["links_commit"] is None and moved["links_updated"] == []
    assert memory.read_text("people/family/lea.md").endswith("See [[domains/family]].\n")


def test_a_path_is_posix(memory):
    with pytest.raises(UsageError, match="separate folders with '/'"):
        notebook.write(memory, "people\\lea.md", "x", "Lea.")
    assert not list(memory.root.glob("people*lea.md"))
