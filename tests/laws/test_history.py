"""A replay read ahead in chunks judges exactly what a replay of one commit at a time judges."""

import threading

import pytest

from souveraine.laws import history
from souveraine.laws.repo import Repo
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, write


def _lawless_history(root) -> None:
    """Commits made without hooks: lawful ones, and breaches of several laws between them."""
    write(root, DAY, "\nA later turn.\n", mode="a")
    commit_all(root, "chore(journal): a later turn", "--no-verify")
    write(root, DAY, DAY_TEXT.replace("Good morning.", "Good night."))
    commit_all(root, "tidied", "--no-verify")
    write(root, "notes/k.md", "---\ntitle: [x\n---\nseed: " + "ab" * 32 + "\n")
    commit_all(root, "feat(memory): k", "--no-verify")
    for n in range(5):
        write(root, "notes/plain.md", f"---\ntitle: plain\n---\nline {n}\n")
        commit_all(root, f"docs(notes): line {n}", "--no-verify")
    (root / DAY).unlink()
    commit_all(root, "chore(journal): gone", "--no-verify")


def _judged(root, chunk, monkeypatch):
    monkeypatch.setattr(history, "CHUNK", chunk)
    count, found = history.judge(Repo(root), ["HEAD"])
    return count, [(b.commit, b.path, b.rule, b.message) for b in found]


def test_chunks_of_any_size_judge_alike(memory, monkeypatch):
    _lawless_history(memory.root)
    whole = _judged(memory.root, 1000, monkeypatch)
    assert {rule for _, _, rule, _ in whole[1]} >= {"append_only_rewrite", "append_only_delete", "private_key",
                                                    "bad_frontmatter", "bad_message"}
    for chunk in (1, 2, 3):
        assert _judged(memory.root, chunk, monkeypatch) == whole


def test_a_failing_read_is_raised_where_the_chunks_are_judged(memory, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("git went away")
        yield

    monkeypatch.setattr(history, "commits", broken)
    with pytest.raises(RuntimeError, match="git went away"):
        history.judge(Repo(memory.root), ["HEAD"])


def test_a_replay_left_early_lets_its_reader_end(memory, monkeypatch):
    _lawless_history(memory.root)
    monkeypatch.setattr(history, "CHUNK", 1)
    chunks = history._read_ahead(Repo(memory.root), ["HEAD"])
    next(chunks)
    chunks.close()
    for reader in [t for t in threading.enumerate() if t.name == "verify-read-ahead"]:
        reader.join(timeout=30)
        assert not reader.is_alive()
