"""The witnessed candidates kept by the change are always what a fresh `git grep` finds."""

import json

import pytest

from souveraine.laws import candidates
from souveraine.laws.repo import Repo
from tests.laws.steps import commit_all, write
from tests.support import git


def _head(root) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _commit(root, message) -> None:
    assert commit_all(root, message, "--no-verify").returncode == 0


@pytest.fixture
def kept(memory):
    root = memory.root
    write(root, "memories/2026/a.md", "---\ntier: foundational\n---\nA.\n")
    write(root, "memories/2026/b.md", "---\ntier: episodic\n---\nB.\n")
    write(root, "memories/2026/c.md", "---\ntier: episodic\n---\nOnce constitutive, in words.\n")
    _commit(root, "feat(memory): three")
    assert candidates.at(Repo(root), _head(root)) == ["memories/2026/a.md", "memories/2026/c.md"]
    return root


def test_a_new_tree_is_searched_only_where_it_differs(kept, monkeypatch):
    write(kept, "memories/2026/b.md", "---\ntier: constitutive\n---\nB.\n")
    write(kept, "memories/2026/c.md", "---\ntier: episodic\n---\nPlain now.\n")
    write(kept, "memories/2027/d.md", "---\ntier: foundational\n---\nD.\n")
    write(kept, "memories/2027/e.md", "---\ntier: episodic\n---\nE.\n")
    (kept / "memories/2026/a.md").unlink()
    _commit(kept, "fix(memory): five changes")
    fresh = candidates.grep(Repo(kept), _head(kept))

    def no_grep(*args):
        raise AssertionError("searched it all")

    monkeypatch.setattr(candidates, "grep", no_grep)
    assert candidates.at(Repo(kept), _head(kept)) == fresh == ["memories/2026/b.md", "memories/2027/d.md"]
    assert candidates.at(Repo(kept), "HEAD~1") == ["memories/2026/a.md", "memories/2026/c.md"]


def test_a_kept_tree_that_is_gone_or_a_damaged_file_sends_it_back_to_git_grep(kept):
    path = kept / ".souveraine" / candidates.FILE
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "tree": "0" * 40, "candidates": ["memories/2026/b.md"]}))
    assert candidates.at(Repo(kept), _head(kept)) == ["memories/2026/a.md", "memories/2026/c.md"]
    path.write_text("{ not json")
    assert candidates.at(Repo(kept), _head(kept)) == ["memories/2026/a.md", "memories/2026/c.md"]


def test_a_memory_elevated_by_hand_after_the_last_check_is_checked(kept, invoke):
    assert invoke("verify", "--at", "HEAD").exit_code == 1         # a.md claims foundational with no witness
    write(kept, "memories/2026/b.md", "---\ntier: foundational\n---\nB.\n")
    _commit(kept, "fix(memory): b raised by hand")
    result = invoke("verify", "--at", "HEAD", "--json")
    assert result.exit_code == 1
    assert {b["path"] for b in json.loads(result.stdout)} >= {"memories/2026/a.md", "memories/2026/b.md"}


def test_a_tree_far_from_the_kept_one_is_searched_by_git_grep(kept, monkeypatch):
    for n in range(3):
        write(kept, f"memories/2027/n{n}.md", "---\ntier: foundational\n---\nN.\n")
    _commit(kept, "feat(memory): three more")
    monkeypatch.setattr(candidates, "LIMIT", 2)
    searched = []
    monkeypatch.setattr(candidates, "grep", lambda repo, commit: searched.append(commit) or ["all"])
    assert candidates.at(Repo(kept), _head(kept)) == ["all"] and searched == [_head(kept)]


def test_a_replay_leaves_the_kept_list_be(kept):
    from souveraine.laws import history

    before = (kept / ".souveraine" / candidates.FILE).read_text()
    history.judge(Repo(kept), ["HEAD"])
    assert (kept / ".souveraine" / candidates.FILE).read_text() == before


def test_a_cache_folder_linked_outside_is_left_alone(kept, tmp_path):
    import shutil

    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(kept / ".souveraine")
    (kept / ".souveraine").symlink_to(outside)
    assert candidates.at(Repo(kept), _head(kept)) == ["memories/2026/a.md", "memories/2026/c.md"]
    assert list(outside.iterdir()) == []
