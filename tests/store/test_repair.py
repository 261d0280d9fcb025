"""What a killed command leaves is mended by the next writing command, and listed by doctor."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from souveraine.store import git as gitstore
from souveraine.store import intent, repair
from tests.support import ROOT, assert_clean, git

DAY = "journal/2026/11/2026-11-30.md"


@pytest.fixture(autouse=True)
def at_1432(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")


def killed_mid_change(memory, body: str) -> None:
    """A process that opens a change, runs ``body`` inside it, says 'written', and is killed -9."""
    code = ("import sys, time\nfrom souveraine.store.memory import Memory\nmemory = Memory(sys.argv[1])\n"
            "with memory.change('chore(journal): never committed') as change:\n"
            + "".join(f"    {line}\n" for line in body.splitlines())
            + "    print('written', flush=True)\n    time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code, str(memory.root)], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "written"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def test_a_change_killed_before_its_commit_is_put_back_by_the_next_command(memory, invoke):
    pending = (memory.root / "inbox/pending.md").read_text()
    killed_mid_change(memory, "change.write('people/new.md', 'half\\n')\n"
                              "change.append('inbox/pending.md', '- half an item\\n')\n"
                              "import subprocess; subprocess.run(['git', '-C', sys.argv[1], 'add', 'people/new.md'])")
    assert "people/new.md" in git(memory.root, "diff", "--cached", "--name-only")
    [left] = intent.left(memory)
    assert sorted(p for p, _ in left.paths) == ["inbox/pending.md", "people/new.md"]
    assert [f.kind for f in repair.find(memory, deep=False)] == ["change"]
    done = invoke("remember", "Ana likes tea.")
    assert done.exit_code == 0, done.output
    assert not (memory.root / "people/new.md").exists()
    assert (memory.root / "inbox/pending.md").read_text() == pending
    assert intent.left(memory) == [] and list((memory.cache / "changes").iterdir()) == []
    assert "Ana likes tea" in git(memory.root, "show", "HEAD")
    assert_clean(memory.root)


def test_a_change_killed_after_its_commit_keeps_what_it_committed(memory):
    code = ("import os, sys\nfrom souveraine.laws import inprocess\nfrom souveraine.store.memory import Memory, Change\n"
            "from souveraine.store import git\ninprocess.enable()\nmemory = Memory(sys.argv[1])\n"
            "change = Change(memory, 'feat(memory): committed then killed')\n"
            "change.write('people/kept.md', '---\\ndescription: Kept.\\n---\\n# Kept\\n')\n"
            "git.commit(memory.root, change.paths, change.message)\nos._exit(0)\n")
    subprocess.run([sys.executable, "-c", code, str(memory.root)], cwd=ROOT, check=True)
    assert len(intent.left(memory)) == 1
    with memory.lock():
        pass
    assert (memory.root / "people/kept.md").exists()
    assert intent.left(memory) == []
    assert_clean(memory.root)


def test_temporary_files_of_dead_writers_go_and_live_ones_stay(memory, invoke):
    dead = memory.cache / ".counters.json.999999999-0badf00d.tmp"
    live = memory.cache / f".counters.json.{os.getpid()}-0badf00d.tmp"
    memory.cache.mkdir(exist_ok=True)
    dead.write_text("x")
    live.write_text("x")
    in_tree = memory.root / "memories" / ".note.md.999999999-0badf00d.tmp"
    in_tree.write_text("x")
    found = {f.path: f.kind for f in repair.find(memory)}
    assert found[".souveraine/.counters.json.999999999-0badf00d.tmp"] == "temp"
    assert found["memories/.note.md.999999999-0badf00d.tmp"] == "temp"
    assert not any(str(os.getpid()) in path for path in found)
    invoke("persist", "--user", "hi", "--assistant", "hello")
    assert not dead.exists() and live.exists() and in_tree.exists(), "the tree is walked by doctor, not by persist"
    invoke("doctor", "--fix", "--json")
    assert not in_tree.exists()
    live.unlink()
    assert_clean(memory.root)


def test_a_defrag_killed_after_removing_its_worktree_leaves_no_branch_after_the_next_command(memory, invoke):
    git(memory.root, "branch", "defrag/60783923", "HEAD")
    assert invoke("persist", "--user", "hi", "--assistant", "hello").exit_code == 0
    assert git(memory.root, "branch", "--list", "defrag/*") == ""
    assert_clean(memory.root)


def test_a_killed_defrag_leaves_nothing_after_the_next_command(memory, invoke):
    where = memory.cache / "defrag" / "0123abcd"
    git(memory.root, "worktree", "add", "-q", "-b", "defrag/0123abcd", str(where), "HEAD")
    (where / "people" / "x.md").write_text("half\n")
    broken = memory.root / ".git" / "worktrees" / "gone"
    broken.mkdir()
    (broken / "gitdir").write_text(str(memory.cache / "defrag" / "gone" / ".git") + "\n")
    found = {f.path: f.kind for f in repair.find(memory)}
    assert found == {".souveraine/defrag/0123abcd": "worktree", ".git/worktrees/gone": "worktree"}
    assert invoke("persist", "--user", "hi", "--assistant", "hello").exit_code == 0
    assert not where.exists() and not broken.exists()
    assert git(memory.root, "branch", "--list", "defrag/*") == ""
    assert git(memory.root, "worktree", "list").count("\n") == 1
    subprocess.run(["git", "-C", str(memory.root), "fsck", "--full"], check=True, capture_output=True)
    assert_clean(memory.root)


def test_a_fast_forward_cut_short_is_put_back_at_its_base(memory, invoke):
    base = git(memory.root, "rev-parse", "HEAD").strip()
    git(memory.root, "checkout", "-qb", "defrag/feedf00d")
    (memory.root / "people" / "split.md").write_text("---\ndescription: A split.\n---\n# Split\n")
    readme = memory.root / "people" / "_index.md"
    readme.write_text(readme.read_text() + "\n- [[people/split]]\n")
    git(memory.root, "add", "-A")
    git(memory.root, "commit", "-qm", "chore(defrag): split 1 note")
    tip = git(memory.root, "rev-parse", "HEAD").strip()
    git(memory.root, "checkout", "-q", "main")
    # Killed half-way through the fast-forward: one file written, HEAD still at the base.
    git(memory.root, "show", f"{tip}:people/split.md")
    (memory.root / "people" / "split.md").write_text(git(memory.root, "show", f"{tip}:people/split.md"))
    (memory.root / ".git" / "index.lock").write_text("")
    os.utime(memory.root / ".git" / "index.lock", (time.time() - 60, time.time() - 60))
    memory.cache.mkdir(exist_ok=True)
    (memory.cache / repair.DEFRAG_MERGE).write_text(json.dumps({"base": base, "tip": tip, "branch": "defrag/feedf00d"}))
    assert {f.kind for f in repair.find(memory)} >= {"defrag", "index-lock"}
    assert invoke("doctor", "--fix").exit_code in (0, 1)
    assert not (memory.root / "people" / "split.md").exists()
    assert git(memory.root, "rev-parse", "HEAD").strip() == base
    assert git(memory.root, "branch", "--list", "defrag/*") == ""
    assert not (memory.cache / repair.DEFRAG_MERGE).exists()
    assert_clean(memory.root)


def test_an_integration_cut_short_is_aborted(memory, invoke):
    from souveraine.forks import fork

    fork.start(memory, "side", "a side task")
    child = fork.fork_memory(memory, "side")
    with child.change("feat(memory): from the fork") as change:
        change.write("people/side.md", "---\ndescription: Side.\n---\n# Side\n")
    head = gitstore.head(memory.root)
    subprocess.run(["git", "-C", str(memory.root), "merge", "--no-ff", "--no-commit", "-q", "fork/side"],
                   capture_output=True)
    (memory.cache / repair.INTEGRATING).write_text(json.dumps({"name": "side", "head": head,
                                                                "paths": ["people/side.md"]}))
    assert gitstore.in_progress(memory.root) == "merge"
    with memory.lock():
        pass
    assert gitstore.in_progress(memory.root) is None
    assert not (memory.root / "people" / "side.md").exists()
    assert gitstore.head(memory.root) == head
    assert (memory.cache / "forks" / "side").exists(), "an active fork stays"
    assert_clean(memory.root)


def test_an_integration_killed_inside_its_commit_is_finished_not_left_mid_merge(memory, invoke):
    from souveraine.forks import fork

    fork.start(memory, "side", "a side task")
    child = fork.fork_memory(memory, "side")
    with child.change("feat(memory): from the fork") as change:
        change.write("people/side.md", "---\ndescription: Side.\n---\n# Side\n")
    head = gitstore.head(memory.root)
    git(memory.root, "merge", "--no-ff", "--no-commit", "-q", "fork/side")
    merge_head = (memory.root / ".git" / "MERGE_HEAD").read_text()
    git(memory.root, "commit", "-qm", "feat(fork): integrate side")    # the commit landed…
    (memory.root / ".git" / "MERGE_HEAD").write_text(merge_head)      # …and the kill came before git tidied up
    (memory.cache / repair.INTEGRATING).write_text(json.dumps({"name": "side", "head": head,
                                                                "paths": ["people/side.md"]}))
    assert gitstore.in_progress(memory.root) == "merge"
    done = invoke("persist", "--user", "Merged?", "--assistant", "Yes.")
    assert (done.exit_code, done.stderr) == (0, "")
    assert gitstore.in_progress(memory.root) is None
    assert (memory.root / "people" / "side.md").exists()
    assert "Merged?" in git(memory.root, "show", "HEAD")
    assert_clean(memory.root)


def test_a_fork_whose_start_was_cut_short_is_removed(memory):
    where = memory.cache / "forks" / "ghost"
    git(memory.root, "worktree", "add", "-q", "-b", "fork/ghost", str(where), "HEAD")
    [found] = [f for f in repair.find(memory) if f.kind == "worktree"]
    assert found.path == ".souveraine/forks/ghost" and "start was cut short" in found.why
    with memory.lock():
        pass
    assert not where.exists()
    assert git(memory.root, "branch", "--list", "fork/*") == ""


def test_doctor_lists_each_leftover_and_fix_mends_them(memory, invoke):
    killed_mid_change(memory, "change.write('people/new.md', 'half\\n')")
    lock = memory.root / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    listed = json.loads(invoke("doctor", "--json").stdout)
    checks = {f["check"]: f for f in listed}
    assert checks["change"]["severity"] == "error" and "people/new.md" in checks["change"]["why"]
    assert checks["index-lock"]["fix"] == f"remove {lock} (doctor --fix, or any writing command, does)"
    assert lock.exists(), "doctor alone changes nothing"
    fixed = invoke("doctor", "--fix", "--json")
    left = {f["check"] for f in json.loads(fixed.stdout)}
    assert not left & {"change", "index-lock"}
    assert not lock.exists() and not (memory.root / "people/new.md").exists()
    assert_clean(memory.root)


def test_doctor_fix_commits_the_spool(memory, invoke):
    invoke("persist", "--user", "kept", "--assistant", "for later", "--no-commit")
    listed = json.loads(invoke("doctor", "--json").stdout)
    assert any(f["check"] == "spool" and "1 exchange(s) kept" in f["why"] for f in listed)
    invoke("doctor", "--fix")
    assert "for later" in (memory.root / DAY).read_text()
    assert_clean(memory.root)


def test_ref_locks_a_killed_git_left_are_removed_by_the_next_command(memory, invoke):
    locks = [memory.root / ".git" / "refs" / "heads" / "main.lock", memory.root / ".git" / "HEAD.lock"]
    for lock in locks:
        lock.write_text("")
        os.utime(lock, (time.time() - 60, time.time() - 60))
    assert {f.kind for f in repair.find(memory)} >= {"ref-lock"}
    done = invoke("persist", "--user", "Locked?", "--assistant", "Not any more.")
    assert (done.exit_code, done.stderr) == (0, "")
    assert not any(lock.exists() for lock in locks)
    assert "Locked?" in git(memory.root, "show", "HEAD")
    assert_clean(memory.root)


def test_a_packed_refs_file_a_killed_git_left_does_not_keep_branches_forever(memory, invoke):
    """git writes packed-refs.new while it deletes a branch; killed then, it leaves the file,
    and every later deletion fails ('unable to create packed-refs.new: File exists')."""
    git(memory.root, "branch", "defrag/0a1b2c3d")
    stale = memory.root / ".git" / "packed-refs.new"
    stale.write_text("")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    refused = subprocess.run(["git", "-C", str(memory.root), "branch", "-D", "defrag/0a1b2c3d"], capture_output=True,
                             text=True)
    assert refused.returncode != 0 and "packed-refs.new" in refused.stderr
    done = invoke("remember", "Tomás keeps the boat at Cascais.")
    assert done.exit_code == 0, done.output
    assert not stale.exists()
    assert git(memory.root, "branch", "--list", "defrag/*") == ""
    assert_clean(memory.root)


def test_a_ref_lock_a_kill_left_a_moment_ago_does_not_keep_the_next_turn_out(memory, invoke):
    """The next command comes a moment after the kill: a lock no process holds is looked at
    again once a git would have started, then removed, and the turn is committed."""
    lock = memory.root / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("")
    done = invoke("persist", "--user", "Locked a moment ago?", "--assistant", "Not any more.", "--json")
    assert done.exit_code == 0, done.output
    assert not json.loads(done.stdout)["kept"]
    assert not lock.exists()
    assert "Locked a moment ago?" in git(memory.root, "show", "HEAD")
    assert_clean(memory.root)
