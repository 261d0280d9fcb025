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


def test_good_work_comes_and_no_branch_goes(memory, remote):
    write(memory.root, DAY, "\nA turn.\n", mode="a")
    commit_all(memory.root, "chore(journal): a turn")
    assert git_run(memory.root, "push", "-q", "origin", "main", "main:side").returncode == 0
    deleted = git_run(memory.root, "push", "-q", "origin", "--delete", "side")
    assert deleted.returncode == 1
    assert "deletion prohibited" in deleted.stderr  # receive.denyDeletes, git's own wall
    assert git(remote, "config", "receive.denyDeletes").strip() == "true"
    assert git(remote, "config", "receive.denyNonFastForwards").strip() == "true"


def test_the_guard_alone_lets_a_merged_branch_go_but_never_head_s(memory, remote):
    """Where git's walls were taken down, the pre-receive hook still refuses to delete the branch HEAD names."""
    git(remote, "config", "receive.denyDeletes", "false")
    git(remote, "config", "receive.denyDeleteCurrent", "warn")
    assert git_run(memory.root, "push", "-q", "origin", "main:side").returncode == 0
    assert git_run(memory.root, "push", "-q", "origin", "--delete", "side").returncode == 0
    deleted = git_run(memory.root, "push", "-q", "origin", ":main")
    assert deleted.returncode == 1
    assert ("remote: souveraine: refs/heads/main: refused, it is the branch the shared memory's HEAD names, which "
            "every clone follows; keep it, and delete other branches only") in deleted.stderr
    assert tip(remote)


def test_a_deletion_of_head_s_branch_piped_to_the_hook_is_refused(remote):
    from tests.support import souveraine

    line = f"{tip(remote)} {'0' * 40} refs/heads/main\n"
    done = souveraine("hook", "pre-receive", input=line, env={"GIT_DIR": str(remote)}, cwd=remote)
    assert done.returncode == 1
    assert "refs/heads/main: refused, it is the branch the shared memory's HEAD names" in done.stderr


def test_deleting_a_branch_that_alone_holds_commits_is_refused(memory, remote):
    git(remote, "config", "receive.denyDeletes", "false")
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
