import pytest

from souveraine.bootstrap import ADOPT_MESSAGE
from souveraine.store import conventions
from tests.laws.steps import commit_all, git_run, write
from tests.support import assert_clean, git

SUGGESTION = "only moves or renames of identical files are a refactor; commit it as 'fix(memory): …' or 'chore(defrag): …' instead"


@pytest.mark.parametrize("message", [
    "feat(init): bootstrap memory", "feat(memory): remember the green sky", "fix(memory): correct the birthday",
    "chore(defrag): split people/ana.md", "chore(journal): 3 turns", "chore(archive): synthesis through 2026-01-05",
    "refactor: move notes into domains/", "docs: the sailing decision", "feat(identity)!: a new name",
    "fix(memory): a fix\n\nWhy it was wrong.\n\nRefs: #3", "Merge branch 'side'", "Merge remote-tracking branch 'origin/main'",
    'Revert "feat(memory): remember the green sky"\n\nThis reverts commit 0a9f7eb.', 'Reapply "docs: x"',
    "fixup! feat(memory): x", "chore(journal): a turn\n# Please enter the commit message\n",
    "docs: x\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n",
])
def test_good_messages_keep_the_conventions(message):
    assert conventions.problem(message) is None


@pytest.mark.parametrize("message, why", [
    ("", "the commit message is empty"),
    ("# only a comment\n", "the commit message is empty"),
    ("updated stuff", "'updated stuff' is not a Conventional Commit; write 'type(scope): what changed', e.g. 'fix(memory): correct the birthday'"),
    ("feat(memory):no space", "'feat(memory):no space' is not a Conventional Commit"),
    ("feature(memory): x", "unknown commit type 'feature'; use one of: feat, fix, chore, refactor, docs, revert"),
    ("fix(memory): x\nbody at once", "the header must be followed by a blank line before the body"),
])
def test_bad_messages_are_refused_with_the_reason(message, why):
    assert conventions.problem(message).startswith(why)


def test_the_adoption_message_is_the_one_bootstrap_writes():
    assert conventions.ADOPTION == ADOPT_MESSAGE


def test_the_commit_msg_hook_refuses_a_bad_message(memory):
    write(memory.root, "domains/sailing.md", "# Sailing\n")
    done = commit_all(memory.root, "added sailing")
    assert done.returncode == 1
    assert done.stderr == ("souveraine: 'added sailing' is not a Conventional Commit; write 'type(scope): what changed', "
                           "e.g. 'fix(memory): correct the birthday'\n")
    assert commit_all(memory.root, "feat(memory): sailing").returncode == 0
    assert_clean(memory.root)


def test_a_refactor_that_only_moves_is_accepted(memory):
    write(memory.root, "domains/sailing.md", "# Sailing\n")
    assert commit_all(memory.root, "feat(memory): sailing").returncode == 0
    (memory.root / "domains" / "sea").mkdir()
    git(memory.root, "mv", "domains/sailing.md", "domains/sea/sailing.md")
    done = commit_all(memory.root, "refactor: sailing under sea/")
    assert (done.returncode, done.stderr) == (0, "")


def test_a_refactor_that_changes_content_is_refused(memory):
    write(memory.root, "domains/sailing.md", "# Sailing\n")
    assert commit_all(memory.root, "feat(memory): sailing").returncode == 0
    git(memory.root, "mv", "domains/sailing.md", "domains/sea.md")
    write(memory.root, "domains/sea.md", "Knots.\n", mode="a")
    write(memory.root, "system/state.md", "\n", mode="a")
    done = commit_all(memory.root, "refactor(defrag): sailing becomes sea")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"souveraine: domains/sailing.md: a refactor commit deletes this file without moving it; {SUGGESTION}",
        f"souveraine: domains/sea.md: a refactor commit adds this file with new content; {SUGGESTION}",
        f"souveraine: system/state.md: a refactor commit changes this file's content; {SUGGESTION}",
    ]
    assert commit_all(memory.root, "chore(defrag): sailing becomes sea").returncode == 0


def test_merge_and_revert_messages_from_git_are_accepted(memory):
    root = memory.root
    git(root, "checkout", "-q", "-b", "side")
    write(root, "domains/sailing.md", "# Sailing\n")
    assert commit_all(root, "feat(memory): sailing").returncode == 0
    git(root, "checkout", "-q", "main")
    write(root, "domains/cooking.md", "# Cooking\n")
    assert commit_all(root, "feat(memory): cooking").returncode == 0
    merged = git_run(root, "merge", "--no-ff", "--no-edit", "side")
    assert merged.returncode == 0, merged.stderr
    assert git(root, "log", "-1", "--format=%s").strip() == "Merge branch 'side'"
    reverted = git_run(root, "revert", "--no-edit", "HEAD~1")
    assert reverted.returncode == 0, reverted.stderr
    assert git(root, "log", "-1", "--format=%s").strip() == 'Revert "feat(memory): cooking"'
    assert_clean(root)


def test_a_reworded_amend_is_judged_like_a_commit(memory):
    write(memory.root, "domains/sailing.md", "# Sailing\n")
    assert commit_all(memory.root, "feat(memory): sailing").returncode == 0
    assert git_run(memory.root, "commit", "-q", "--amend", "-m", "feat(memory): sailing, at last").returncode == 0
    refused = git_run(memory.root, "commit", "-q", "--amend", "-m", "sailing")
    assert refused.returncode == 1
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(memory): sailing, at last"
