"""While git has a merge under way, nothing of ours commits: persist keeps the turn in the
spool, every other writing command refuses in one line naming how to finish, and no
conflict marker is ever committed."""

import subprocess

import pytest

from souveraine.store import git as gitstore
from souveraine.store import spool
from tests.support import assert_clean, git

FINISH = "finish it with 'git commit' or give it up with 'git merge --abort', then run this again"


@pytest.fixture
def conflicted(memory, invoke):
    """A real conflicting merge, after one committed exchange (so reflect has turns to witness)."""
    assert invoke("persist", "--user", "Hello, Inês.", "--assistant", "Olá!").exit_code == 0
    assert invoke("remember", "The holiday is in Porto.", "--key", "holiday").exit_code == 0
    root = memory.root
    git(root, "checkout", "-qb", "other")
    note = root / "people" / "ana.md"
    note.write_text("---\ndescription: Ana.\n---\n# Ana\n\nLikes tea.\n")
    git(root, "add", "people/ana.md")
    git(root, "commit", "-qm", "docs(people): ana likes tea")
    git(root, "checkout", "-q", "main")
    note.write_text("---\ndescription: Ana.\n---\n# Ana\n\nLikes coffee.\n")
    git(root, "add", "people/ana.md")
    git(root, "commit", "-qm", "docs(people): ana likes coffee")
    merged = subprocess.run(["git", "-C", str(root), "merge", "-q", "other"], capture_output=True, text=True)
    assert merged.returncode != 0 and gitstore.in_progress(root) == "merge"
    assert "<<<<<<<" in note.read_text()
    return memory


def snapshot(root) -> tuple[str, str, str]:
    return git(root, "rev-parse", "HEAD"), git(root, "status", "--porcelain"), git(root, "diff")


@pytest.mark.parametrize("args", [
    ("remember", "Tomás prefers the window seat."),
    ("inbox", "add", "Call the plumber"),
    ("reflect", "--force"),
    ("archive", "--force"),
    ("forget", "--key", "holiday"),
    ("defrag",),
])
def test_writing_commands_refuse_in_one_line_and_leave_the_merge_as_it_was(conflicted, invoke, args):
    before = snapshot(conflicted.root)
    done = invoke(*args)
    assert done.exit_code == 1, done.output
    assert done.stderr == f"souveraine: a merge is in progress in {conflicted.root}; {FINISH}\n"
    assert snapshot(conflicted.root) == before
    assert gitstore.in_progress(conflicted.root) == "merge"


def test_the_refusal_is_stable_for_programs(conflicted, invoke):
    import json

    done = invoke("remember", "x y z", "--json")
    assert done.exit_code == 1
    assert json.loads(done.stdout)["error"] == "merge_in_progress"


def test_doctor_fix_mends_nothing_mid_merge_and_says_how_to_finish(conflicted, invoke):
    before = snapshot(conflicted.root)
    done = invoke("doctor", "--fix")
    assert "finish it with 'git commit' or give it up with 'git merge --abort'" in done.output
    assert snapshot(conflicted.root) == before


def test_a_merge_finished_by_hand_lets_the_kept_turns_in_without_markers(conflicted, invoke):
    root = conflicted.root
    assert invoke("persist", "--user", "Merging?", "--assistant", "Not yet.").exit_code == 0
    assert len(spool.entries(conflicted)) == 1
    (root / "people" / "ana.md").write_text("---\ndescription: Ana.\n---\n# Ana\n\nLikes tea and coffee.\n")
    git(root, "add", "people/ana.md")
    git(root, "commit", "-qm", "Merge branch 'other'")
    assert invoke("remember", "Ana likes both.").exit_code == 0
    assert invoke("persist", "--flush").exit_code == 0
    assert spool.entries(conflicted) == []
    history = git(root, "log", "-p", "--format=")
    assert "<<<<<<<" not in history and ">>>>>>>" not in history
    assert "Merging?" in git(root, "log", "-p", "-1", "--format=", "--", "journal")
    assert_clean(root)
