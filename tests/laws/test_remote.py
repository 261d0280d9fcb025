import pytest

from souveraine.laws import install
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, git_run, write
from tests.support import git


@pytest.fixture
def remote(memory, tmp_path):
    """A bare shared remote, guarded, holding the memory's history as `origin`."""
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert install.install_bare(bare) == ["pre-receive"]
    git(memory.root, "remote", "add", "origin", str(bare))
    pushed = git_run(memory.root, "push", "-q", "origin", "main")
    assert (pushed.returncode, pushed.stderr) == (0, "")
    return bare


def tip(bare):
    return git(bare, "rev-parse", "main").strip()


def test_a_breach_made_with_no_verify_cannot_reach_the_shared_memory(memory, remote):
    before = tip(remote)
    write(memory.root, DAY, DAY_TEXT.replace("Good morning.", "Good night."))
    assert commit_all(memory.root, "fix(memory): quietly", "--no-verify").returncode == 0
    sha = git(memory.root, "rev-parse", "HEAD").strip()
    pushed = git_run(memory.root, "push", "-q", "origin", "main")
    assert pushed.returncode == 1
    assert (f"remote: souveraine: {sha[:12]} {DAY}: append-only, but this change changes its committed text at line 12; "
            "restore the committed text and append a correction entry instead") in pushed.stderr
    assert "(pre-receive hook declined)" in pushed.stderr
    assert tip(remote) == before


def test_a_force_push_is_refused(memory, remote):
    write(memory.root, DAY, "\nA turn.\n", mode="a")
    commit_all(memory.root, "chore(journal): a turn")
    assert git_run(memory.root, "push", "-q", "origin", "main").returncode == 0
    before = tip(remote)
    git(memory.root, "reset", "-q", "--hard", "HEAD~1")
    write(memory.root, "domains/sailing.md", "# Sailing\n")
    commit_all(memory.root, "feat(memory): sailing")
    forced = git_run(memory.root, "push", "-q", "--force", "origin", "main")
    assert forced.returncode == 1
    assert (f"remote: souveraine: refs/heads/main: refused, a non-fast-forward update would rewrite the shared history; "
            f"fetch, merge or rebase your work onto {before[:12]} and push again (never --force)") in forced.stderr
    assert tip(remote) == before


def test_good_work_and_merged_branches_come_and_go(memory, remote):
    write(memory.root, DAY, "\nA turn.\n", mode="a")
    commit_all(memory.root, "chore(journal): a turn")
    assert git_run(memory.root, "push", "-q", "origin", "main", "main:side").returncode == 0
    assert git_run(memory.root, "push", "-q", "origin", "--delete", "side").returncode == 0


def test_deleting_a_branch_that_alone_holds_commits_is_refused(memory, remote):
    git(memory.root, "checkout", "-q", "-b", "side")
    write(memory.root, "domains/sailing.md", "# Sailing\n")
    commit_all(memory.root, "feat(memory): sailing")
    assert git_run(memory.root, "push", "-q", "origin", "side").returncode == 0
    deleted = git_run(memory.root, "push", "-q", "origin", "--delete", "side")
    assert deleted.returncode == 1
    assert ("remote: souveraine: refs/heads/side: refused, deleting it would drop 1 commit(s) no other branch keeps; "
            "merge it into a kept branch first") in deleted.stderr


def test_only_a_bare_repository_can_be_guarded(invoke, memory):
    result = invoke("hook", "install", "--bare", str(memory.root))
    assert result.exit_code == 2
    assert result.stderr == (f"souveraine: {memory.root} is not a bare git repository; "
                             "give the shared remote's folder (made by 'git init --bare')\n")
