"""A commit's tree made from its parent's and the staged changes (store.trees) is the tree
`git write-tree` makes of the same index."""

import os
import random
import subprocess

from souveraine.store import git, trees
from tests.support import git as run_git


def _repo(root):
    root.mkdir()
    run_git(root, "init", "-q")
    rng = random.Random(3)
    for n in range(60):
        path = root / rng.choice(["", "a/", "a/b/", "a/b/c/", "d/", "d/e/", "f g/", "a-b/", "a.b/"]) / f"n{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"note {n}\n", encoding="utf-8")
    (root / "a" / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    os.chmod(root / "a" / "run.sh", 0o755)
    (root / "link.md").symlink_to("a/b/n1.md" if (root / "a/b/n1.md").exists() else "x")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "--no-verify", "-m", "chore: start")
    return root


def _files(root):
    return [p for p in run_git(root, "ls-files", "-z").split("\0") if p]


def _change(root, rng):
    """A few random changes staged: edits, new files in new folders, deletions (a folder emptied
    too), a file made a folder and a folder made a file, a mode changed."""
    files = _files(root)
    for path in rng.sample(files, 3):
        if (root / path).is_file() and not (root / path).is_symlink():
            with open(root / path, "a", encoding="utf-8") as handle:
                handle.write(f"more {rng.random()}\n")
    for path in rng.sample(files, 2):
        (root / path).unlink()
    new = rng.choice(["new.md", "a/new.md", "x/y/z/new.md", "d/e/f/new.md", "a/b/c/d/new.md"])
    (root / new).parent.mkdir(parents=True, exist_ok=True)
    (root / new).write_text("new\n", encoding="utf-8")
    if rng.random() < 0.3:
        victim = rng.choice([p for p in _files(root) if "/" not in p and (root / p).is_file()] or ["none"])
        if victim != "none" and not (root / victim).is_symlink():
            (root / victim).unlink()
            (root / victim).mkdir()
            (root / victim / "inside.md").write_text("in\n", encoding="utf-8")
    if rng.random() < 0.3:
        folder = rng.choice(["d/e", "f g", "a.b"])
        if (root / folder).is_dir():
            subprocess.run(["rm", "-rf", str(root / folder)], check=True)
    if rng.random() < 0.3 and (root / "a" / "run.sh").exists():
        os.chmod(root / "a" / "run.sh", 0o644 if os.access(root / "a" / "run.sh", os.X_OK) else 0o755)
    run_git(root, "add", "-A")


def test_the_tree_of_a_change_is_the_one_write_tree_makes(tmp_path):
    root = _repo(tmp_path / "repo")
    rng = random.Random(11)
    for _ in range(25):
        _change(root, rng)
        parent = run_git(root, "rev-parse", "HEAD").strip()
        raw = subprocess.run(["git", "-C", str(root), "diff-index", "--cached", "--raw", "-z", "--no-renames", parent, "--"],
                             capture_output=True, check=True).stdout
        if not raw:
            continue
        made = trees.of_change(root, parent, raw, git.sealed_env(root))
        assert made == run_git(root, "write-tree").strip()
        run_git(root, "commit", "-q", "--no-verify", "-m", "chore: next")


def test_what_it_cannot_make_it_leaves_to_write_tree(tmp_path):
    root = _repo(tmp_path / "repo")
    parent = run_git(root, "rev-parse", "HEAD").strip()
    env = git.sealed_env(root)
    assert trees.of_change(root, parent, b"", env) is None                                # nothing staged
    for path in _files(root):
        (root / path).unlink()
    run_git(root, "add", "-A")
    raw = subprocess.run(["git", "-C", str(root), "diff-index", "--cached", "--raw", "-z", parent, "--"],
                         capture_output=True, check=True).stdout
    assert trees.of_change(root, parent, raw, env) is None                                # the empty tree
    assert trees.of_change(root, "0" * 40, raw, env) is None                              # no such parent


def test_a_persist_commits_without_write_tree(memory, monkeypatch):
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    calls = []
    real = git.run
    monkeypatch.setattr(git, "run", lambda root, *args, **kw: calls.append(args[0]) or real(root, *args, **kw))
    result = persist(memory, Exchange(user="Did the parcel come?", assistant="It came at noon."))
    assert result.commit and "write-tree" not in calls and "mktree" in calls
    assert run_git(memory.root, "status", "--porcelain") == ""
    assert run_git(memory.root, "rev-parse", "HEAD^{tree}").strip() == run_git(memory.root, "write-tree").strip()
