import json

import pytest

from souveraine.errors import Refused, UsageError
from souveraine.forks import fork
from souveraine.store import notes
from souveraine.store.memory import Memory
from tests.forks.conftest import grow, snapshot
from tests.support import assert_clean, git


def start(invoke, name="research", task="compare the ranking formulas"):
    result = invoke("fork", "start", name, "--task", task)
    assert result.exit_code == 0, result.output
    return Memory(result.stdout.strip())


def record(memory, name="research"):
    return notes.read(memory.path(f"reference/forks/{name}.md"))


def test_start_makes_a_worktree_on_its_branch_carrying_the_parent(memory, invoke):
    head = git(memory.root, "rev-parse", "HEAD").strip()
    child = start(invoke)
    assert child.root == memory.root / ".souveraine" / "forks" / "research"
    assert git(child.root, "rev-parse", "--abbrev-ref", "HEAD").strip() == "fork/research"
    assert git(child.root, "rev-parse", "HEAD").strip() == head
    assert child.read_text("system/state.md") == memory.read_text("system/state.md")
    assert record(memory)["status"] == "active" and record(memory)["task"] == "compare the ranking formulas"
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(fork): start research"
    assert_clean(memory.root)
    assert_clean(child.root)
    # The parent sees none of it: the fork lives in the git-ignored cache.
    grow(child, "memories/only-in-fork.md", 2)
    assert not (memory.root / "memories" / "only-in-fork.md").exists()
    assert git(memory.root, "status", "--porcelain", "--ignored").strip() == "!! .souveraine/"


def test_the_fork_keeps_the_parents_laws(memory, invoke):
    child = start(invoke)
    with pytest.raises(Refused, match="append-only"):
        with child.change("fix(memory): rewrite the inner voice") as change:
            change.write("system/metacognition/subconscious.md", "rewritten\n")
    (child.root / "memories" / "x.md").write_text("x\n")
    git(child.root, "add", "memories/x.md")
    done = child.git("commit", "-m", "added x", check=False)
    assert done.returncode != 0 and "Conventional Commit" in done.stderr
    git(child.root, "reset", "-q", "--hard")


def test_list_shows_status_and_live_divergence(memory, invoke):
    assert json.loads(invoke("fork", "list", "--json").output) == []
    child = start(invoke)
    grow(child, "system/project/learnings.md", 7)
    grow(child, "memories/a.md", 30)
    listed = json.loads(invoke("fork", "list", "--json").output)
    assert [(f["name"], f["status"], f["divergence"], f["commits"], f["over"]) for f in listed] == \
        [("research", "active", 7, 2, False)]
    bare = invoke("fork")
    assert bare.exit_code == 0 and bare.output.startswith("research") and "divergence 7/200" in bare.output


def test_the_whole_life_cycle_under_the_threshold(memory, invoke):
    child = start(invoke)
    grow(child, "system/project/learnings.md", 3, word="learned")
    grow(child, "memories/found.md", 2, word="found")
    with child.change("chore(memory): a thought in the fork") as change:
        change.append("system/metacognition/subconscious.md", "[2026-11-30 10:00] [URGENCY: low] — fork thought\n")
    with memory.change("chore(memory): a thought in the parent") as change:
        change.append("system/metacognition/subconscious.md", "[2026-11-30 10:01] [URGENCY: low] — parent thought\n")

    done = invoke("fork", "return", "research", "--summary", "The second formula ranks better.")
    assert done.exit_code == 0, done.output
    assert record(memory)["status"] == "returned"
    assert "The second formula ranks better." in record(memory).body
    assert "feat(memory): grow a note" in record(memory).body

    done = invoke("fork", "integrate", "research", "--json")
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert (result["status"], result["commits"], result["divergence"]) == ("integrated", 3, 4)
    assert git(memory.root, "log", "-1", "--format=%s%n%P").splitlines()[0] == "feat(fork): integrate research"
    assert len(git(memory.root, "log", "-1", "--format=%P").split()) == 2  # a merge
    assert memory.read_text("memories/found.md").count("found") == 3
    voice = memory.read_text("system/metacognition/subconscious.md")
    assert voice.index("fork thought") < voice.index("parent thought")  # both kept, in time order (docs/SYNC.md)
    assert record(memory)["status"] == "integrated"
    assert not child.root.exists()
    assert git(memory.root, "branch", "--list", "fork/*") == ""
    assert_clean(memory.root)


def test_integration_keeps_the_parents_working_state(memory, invoke):
    child = start(invoke)
    assert invoke("state", "set", "--phase", "DEVELOP", "--unit", "fork-work", "--files", "a.py",
                  memory_root=child.root).exit_code == 0
    assert invoke("state", "set", "--phase", "ORIENT", "--unit", "parent-work").exit_code == 0
    assert invoke("fork", "integrate", "research").exit_code == 0
    state = json.loads(invoke("state", "show", "--json").output)
    assert (state["phase"], state["unit"]) == ("ORIENT", "parent-work")
    assert_clean(memory.root)


def test_over_the_threshold_the_fork_is_closed_not_integrated(memory, invoke, set_threshold):
    set_threshold(5)
    child = start(invoke)
    grow(child, "system/persona/principles.md", 6, word="a new principle")
    before = snapshot(memory.root)
    done = invoke("fork", "integrate", "research")
    assert done.exit_code == 1
    assert done.output.strip() == (
        "souveraine: fork research diverged by 6 changed lines in system/ and identities/ (threshold 5); "
        "it was closed, not integrated — its summary stays in reference/forks/research.md")
    assert snapshot(memory.root) == before
    assert record(memory)["status"] == "closed" and record(memory)["divergence"] == 6
    assert "diverged by 6" in record(memory)["reason"]
    assert not child.root.exists() and git(memory.root, "branch", "--list", "fork/*") == ""
    assert_clean(memory.root)


def test_at_the_threshold_the_fork_is_integrated(memory, invoke, set_threshold):
    set_threshold(5)
    child = start(invoke)
    grow(child, "system/persona/zed.md", 2, word="walls")  # 3 frontmatter lines + 2
    done = invoke("fork", "integrate", "research", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["divergence"] == 5
    assert memory.exists("system/persona/zed.md")


def test_pick_brings_back_only_the_chosen_commits(memory, invoke, set_threshold):
    set_threshold(5)
    child = start(invoke)
    wanted = grow(child, "memories/good.md", 3, word="good", message="feat(memory): the good finding")
    grow(child, "system/persona/principles.md", 40, word="drift", message="feat(memory): drift away")
    also = grow(child, "system/project/learnings.md", 2, word="learned", message="feat(memory): a learning")

    done = invoke("fork", "integrate", "research", "--pick", wanted[:10], "--pick", also, "--json")
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert (result["commits"], result["divergence"], result["picked"]) == (2, 2, [wanted[:12], also[:12]])
    assert memory.exists("memories/good.md")
    assert "learned 1" in memory.read_text("system/project/learnings.md")
    assert "drift" not in memory.read_text("system/persona/principles.md")
    assert len(git(memory.root, "log", "-1", "--format=%P").split()) == 1  # one commit, not a merge
    assert "Picked 2 of 3 commits" in git(memory.root, "log", "-1", "--format=%b")
    assert record(memory)["picked"] == [wanted[:12], also[:12]]
    assert not child.root.exists()
    assert_clean(memory.root)


def test_picking_what_is_not_the_forks_is_a_usage_error(memory, invoke):
    start(invoke)
    parent_commit = git(memory.root, "rev-parse", "HEAD~1").strip()
    for pick in ("nonsense", parent_commit):
        done = invoke("fork", "integrate", "research", "--pick", pick)
        assert done.exit_code == 2
        assert "is not one of fork research's own commits" in done.output
    assert record(memory)["status"] == "active"
    assert_clean(memory.root)


def test_a_closed_fork_leaves_the_parents_files_unchanged(memory, invoke):
    child = start(invoke)
    grow(child, "memories/abandoned.md", 4)
    grow(child, "system/project/learnings.md", 3)
    (child.root / "people" / "draft.md").write_text("uncommitted\n")
    before = snapshot(memory.root)
    head = git(memory.root, "rev-parse", "HEAD").strip()
    done = invoke("fork", "close", "research", "--reason", "superseded")
    assert done.exit_code == 0, done.output
    assert snapshot(memory.root) == before
    assert git(memory.root, "diff", "--name-only", head, "HEAD").split() == ["reference/forks/research.md"]
    note = record(memory)
    assert (note["status"], note["reason"]) == ("closed", "superseded")
    assert "Commits left behind" in note.body and note["tip"]
    assert not child.root.exists() and git(memory.root, "branch", "--list", "fork/*") == ""
    assert "research" not in git(memory.root, "worktree", "list")
    assert_clean(memory.root)


def test_close_keeps_the_return_summary_and_repeats_safely(memory, invoke):
    start(invoke)
    assert invoke("fork", "return", "research", "--summary", "Nothing worth keeping.").exit_code == 0
    assert invoke("fork", "close", "research").exit_code == 0
    assert "Nothing worth keeping." in record(memory).body
    head = git(memory.root, "rev-parse", "HEAD")
    again = invoke("fork", "close", "research")
    assert again.exit_code == 0 and git(memory.root, "rev-parse", "HEAD") == head
    done = invoke("fork", "integrate", "research")
    assert done.exit_code == 1 and "fork research is closed already" in done.output


def test_summary_from_a_file_and_return_from_inside_the_fork(memory, invoke, tmp_path):
    child = start(invoke)
    summary = tmp_path / "summary.md"
    summary.write_text("# Findings\n\nFormula B wins.\n")
    done = invoke("fork", "return", "research", "--summary", str(summary), memory_root=child.root)
    assert done.exit_code == 0, done.output
    assert "Formula B wins." in record(memory).body
    assert not (child.root / "reference" / "forks").exists()
    assert_clean(memory.root)
    assert_clean(child.root)


def test_integration_refuses_uncommitted_work(memory, invoke):
    child = start(invoke)
    (child.root / "memories" / "wip.md").write_text("half a thought\n")
    done = invoke("fork", "integrate", "research")
    assert done.exit_code == 1 and "fork research has uncommitted changes" in done.output
    (child.root / "memories" / "wip.md").unlink()
    (memory.root / "system" / "human" / "prefs" / "communication.md").write_text("edited by hand\n")
    done = invoke("fork", "integrate", "research")
    assert done.exit_code == 1 and "has uncommitted changes; commit them before integrating" in done.output
    assert record(memory)["status"] == "active"


def test_a_conflict_outside_append_only_files_leaves_everything_as_it_was(memory, invoke):
    child = start(invoke)
    for who, target in (("fork", child), ("parent", memory)):
        with target.change(f"fix(memory): {who} rewrites a learning") as change:
            change.write("system/project/learnings.md", f"---\ndescription: learnings\n---\n{who} wins\n")
    before = snapshot(memory.root, skip=())
    head = git(memory.root, "rev-parse", "HEAD")
    done = invoke("fork", "integrate", "research")
    assert done.exit_code == 1
    assert "conflicts in system/project/learnings.md; nothing was changed" in done.output
    assert snapshot(memory.root, skip=()) == before and git(memory.root, "rev-parse", "HEAD") == head
    assert record(memory)["status"] == "active" and child.root.exists()
    assert_clean(memory.root)


def test_names_duplicates_nesting_and_empty_summaries(memory, invoke):
    done = invoke("fork", "start", "Bad Name")
    assert done.exit_code == 2 and "is not a fork name" in done.output
    child = start(invoke)
    done = invoke("fork", "start", "research")
    assert done.exit_code == 1 and "a fork named research exists already (active)" in done.output
    done = invoke("fork", "return", "nobody", "--summary", "x")
    assert done.exit_code == 2 and "no fork named nobody" in done.output
    with pytest.raises(Refused, match="this memory is itself a fork"):
        fork.start(child, "nested")
    assert fork.parent_of(child).root == memory.root
    assert [f["name"] for f in fork.list_forks(child)] == ["research"]
    with pytest.raises(UsageError, match="summary is empty"):
        fork.return_fork(memory, "research", "  ")
    assert_clean(memory.root)


def test_integration_holds_the_lock_and_refuses_what_git_cannot_merge(memory, invoke):
    import threading

    from souveraine.errors import LockTimeout

    child = start(invoke)
    grow(child, "people/lena.md", 2)
    held, release = threading.Event(), threading.Event()

    def hold():
        with memory.lock():
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    memory.config["git"]["lock_timeout"] = 0.2
    try:
        with pytest.raises(LockTimeout, match="busy"):
            fork.integrate(memory, "research")
    finally:
        release.set()
        holder.join()
    (memory.root / "people" / "lena.md").write_text("an untracked note in the way\n")
    head = git(memory.root, "rev-parse", "HEAD")
    with pytest.raises(Refused, match="git could not bring back fork research: .*untracked"):
        fork.integrate(memory, "research")
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert git(memory.root, "status", "--porcelain").strip() == "?? people/lena.md"
    assert record(memory)["status"] == "active"


def test_the_laws_check_what_integration_brings_back(memory, invoke):
    child = start(invoke)
    (child.root / "system" / "metacognition" / "subconscious.md").write_text("history, rewritten\n")
    git(child.root, "commit", "-q", "--no-verify", "-am", "fix(memory): rewrite the inner voice")
    head = git(memory.root, "rev-parse", "HEAD")
    done = invoke("fork", "integrate", "research")
    assert done.exit_code == 1
    assert done.output.startswith("souveraine: system/metacognition/subconscious.md: append-only, but this change")
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert "history, rewritten" not in memory.read_text("system/metacognition/subconscious.md")
    assert record(memory)["status"] == "active"
    assert_clean(memory.root)
