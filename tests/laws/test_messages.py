import pytest

from souveraine.bootstrap import ADOPT_MESSAGE
from souveraine.store import conventions
from tests.laws.steps import commit_all, git_run, refusal, write
from tests.support import assert_clean, git

SUGGESTION = "only moves or renames of identical files are a refactor; commit it as 'fix(memory): …' or 'chore(defrag): …' instead"


@pytest.mark.parametrize("message", [
    "feat(init): bootstrap memory", "feat(memory): remember the green sky", "fix(memory): correct the birthday",
    "chore(defrag): split people/ana.md", "chore(journal): 3 turns", "chore(archive): synthesis through 2026-01-05",
    "refactor: move notes into domains/", "docs: the sailing decision", "feat(identity)!: a new name",
    "fix(memory): a fix\n\nWhy it was wrong.\n\nRefs: #3",
    'Revert "feat(memory): remember the green sky"\n\nThis reverts commit 0a9f7eb.',
    'Reapply "docs: x"\n\nThis reverts commit 3b8e1f2a9c4d.', "chore(journal): a turn\n# Please enter the commit message\n",
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


@pytest.mark.parametrize("message", ["Merge branch 'side'", "Merge remote-tracking branch 'origin/main'"])
def test_git_s_merge_messages_are_accepted_on_a_merge_only(message):
    assert conventions.problem(message, merge=True) is None
    assert conventions.problem(message) == (f"'{message}' reads like git's message for a merge, but this commit has one "
                                            "parent; write a Conventional Commit instead, e.g. 'fix(memory): correct the birthday'")


@pytest.mark.parametrize("message, why", [
    ('Revert "x"', "'Revert \"x\"' reads like git's message for a revert, but it names no reverted commit"),
    ("fixup! feat(memory): x", "'fixup!' marks a commit to be squashed into another by a rebase"),
    ("squash! x", "'squash!' marks a commit"), ("amend! x", "'amend!' marks a commit"),
])
def test_look_alikes_of_git_s_own_messages_are_refused(message, why):
    assert conventions.problem(message, merge=True).startswith(why)


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


@pytest.mark.parametrize("message", ["Merge my edits", "fixup! feat(memory): sailing"])
def test_a_merge_or_fixup_subject_on_an_ordinary_commit_is_refused_everywhere(memory, tmp_path, message):
    """Judged by the commit's parents, never its subject: by the hook, by verify, by the remote."""
    from souveraine.laws import install
    from souveraine.laws.verify import verify

    write(memory.root, "domains/sailing.md", "# Sailing\n")
    refused = commit_all(memory.root, message)
    assert refusal(refused)[0].startswith(f"souveraine: '{message.split(' feat')[0].split(' sailing')[0]}")
    assert commit_all(memory.root, message, "--no-verify").returncode == 0
    breaches = verify(memory).breaches
    assert [(b.rule, b.commit) for b in breaches] == [("bad_message", git(memory.root, "rev-parse", "HEAD").strip())]
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    install.install_bare(bare)
    pushed = git_run(memory.root, "push", "-q", str(bare), "main")
    assert pushed.returncode == 1 and "bad_message" not in pushed.stderr and message.split("!")[0] in pushed.stderr


def test_an_amend_spelled_in_the_message_is_not_an_amend(memory):
    """`-m '--amend'` puts --amend on git's command line; the commit's parent says it is no amend."""
    from tests.laws.conftest import DAY, DAY_TEXT

    write(memory.root, DAY, "\nA turn.\n", mode="a")
    assert commit_all(memory.root, "chore(journal): a turn").returncode == 0
    before = git(memory.root, "rev-parse", "HEAD").strip()
    write(memory.root, DAY, DAY_TEXT + "\nA turn, rewritten.\n")
    done = git_run(memory.root, "commit", "-q", "-a", "-m", "fix(journal): x", "-m", "--amend")
    assert refusal(done) == [f"souveraine: {DAY}: append-only, but this change changes its committed text at line 22; "
                             "restore the committed text and append a correction entry instead"]
    assert git(memory.root, "rev-parse", "HEAD").strip() == before
    amended = git_run(memory.root, "commit", "-q", "-a", "--amend", "-m", "chore(journal): a turn, rewritten")
    assert (amended.returncode, amended.stderr) == (0, "")
    assert git(memory.root, "rev-parse", "HEAD~1").strip() == git(memory.root, "rev-parse", f"{before}~1").strip()
