"""A turn given to persist is never lost: durable first, committed when it can be."""

import json
import os
import subprocess
import sys
import time

import pytest

from souveraine.store import git as gitstore
from souveraine.store import journal, spool
from tests.support import ROOT, assert_clean, git

DAY = "journal/2026/11/2026-11-30.md"


@pytest.fixture(autouse=True)
def at_1432(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")


def texts(memory) -> list[str]:
    path = memory.root / DAY
    return [t.text for t in journal.read_day(memory.root, DAY)] if path.exists() else []


def holding(code: str, *args: str) -> subprocess.Popen:
    """A process that runs ``code`` (which prints 'held' once it holds what it holds), then sleeps."""
    process = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_busy_memory_keeps_the_turn_and_the_next_persist_commits_it(invoke, memory):
    config = memory.root / "souveraine.toml"
    config.write_text(config.read_text() + "\n[git]\nlock_timeout = 0.3\n")
    git(memory.root, "commit", "-qam", "chore(config): a short lock wait")
    holder = holding("import sys,time; from souveraine.store.memory import Memory\n"
                     "with Memory(sys.argv[1]).lock():\n    print('held', flush=True); time.sleep(30)", str(memory.root))
    try:
        done = invoke("persist", "--user", "Are you there?", "--assistant", "Yes.")
    finally:
        holder.kill()
        holder.wait()
    assert done.exit_code == 0
    assert done.stderr.startswith("souveraine: kept, not yet committed: the memory is busy")
    assert done.stderr.count("\n") == 1
    assert texts(memory) == [] and len(spool.entries(memory)) == 1
    again = invoke("persist", "--user", "Still there?", "--assistant", "Still.", "--json")
    assert json.loads(again.output)["kept"] is False
    assert texts(memory) == ["Are you there?", "Yes.", "Still there?", "Still."]
    assert spool.entries(memory) == []
    assert_clean(memory.root)


def test_a_stale_index_lock_is_removed_and_the_turn_committed(invoke, memory):
    lock = memory.root / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    done = invoke("persist", "--user", "x", "--assistant", "y")
    assert (done.exit_code, done.stderr) == (0, "")
    assert not lock.exists()
    assert texts(memory) == ["x", "y"]
    assert_clean(memory.root)


def test_an_index_lock_a_kill_left_a_moment_ago_is_told_apart_and_removed(invoke, memory):
    lock = memory.root / ".git" / "index.lock"
    lock.write_text("")        # fresh: for two seconds it could be a git just starting
    done = invoke("persist", "--user", "x", "--assistant", "y")
    assert (done.exit_code, done.stderr) == (0, "")
    assert not lock.exists() and texts(memory) == ["x", "y"]
    assert_clean(memory.root)


def test_an_index_lock_a_live_process_holds_keeps_the_turn(invoke, memory):
    lock = memory.root / ".git" / "index.lock"
    holder = holding("import sys,time; f=open(sys.argv[1],'w'); print('held', flush=True); time.sleep(30)", str(lock))
    try:
        os.utime(lock, (time.time() - 60, time.time() - 60))
        done = invoke("persist", "--user", "x", "--assistant", "y")
        assert done.exit_code == 0
        assert done.stderr == f"souveraine: kept, not yet committed: git is busy ({lock} is held by pid {holder.pid}); " \
                              "the next persist commits it\n"
        assert lock.exists() and texts(memory) == []
    finally:
        holder.kill()
        holder.wait()
        lock.unlink()
    assert invoke("persist", "--flush").exit_code == 0
    assert texts(memory) == ["x", "y"]
    assert_clean(memory.root)


def test_during_a_merge_turns_wait_and_conflict_markers_are_never_committed(invoke, memory):
    git(memory.root, "checkout", "-qb", "other")
    note = memory.root / "people" / "ana.md"
    note.write_text("---\ndescription: Ana.\n---\n# Ana\n\nLikes tea.\n")
    git(memory.root, "add", "people/ana.md")
    git(memory.root, "commit", "-qm", "docs(people): ana likes tea")
    git(memory.root, "checkout", "-q", "main")
    note.write_text("---\ndescription: Ana.\n---\n# Ana\n\nLikes coffee.\n")
    git(memory.root, "add", "people/ana.md")
    git(memory.root, "commit", "-qm", "docs(people): ana likes coffee")
    subprocess.run(["git", "-C", str(memory.root), "merge", "-q", "other"], capture_output=True)
    assert gitstore.in_progress(memory.root) == "merge"
    head = git(memory.root, "rev-parse", "HEAD")
    done = invoke("persist", "--user", "Merge?", "--assistant", "Later.")
    assert done.exit_code == 0
    assert done.stderr == ("souveraine: kept, not yet committed: a merge is in progress; finish it with 'git commit' "
                           "or give it up with 'git merge --abort', and the next persist commits it\n")
    assert git(memory.root, "rev-parse", "HEAD") == head and texts(memory) == []
    git(memory.root, "merge", "--abort")
    assert gitstore.in_progress(memory.root) is None
    assert spool.drain(memory)["turns"] == 2
    assert texts(memory) == ["Merge?", "Later."]
    assert "<<<<<<<" not in git(memory.root, "show", "HEAD")
    assert_clean(memory.root)


def test_a_refused_commit_keeps_the_turn(invoke, memory, monkeypatch):
    from souveraine.errors import Refused

    def refuse(*args, **kwargs):
        raise Refused("a hook said no")

    monkeypatch.setattr(gitstore, "commit", refuse)
    done = invoke("persist", "--user", "x", "--assistant", "y")
    assert (done.exit_code, done.stderr) == (0, "souveraine: kept, not yet committed: a hook said no\n")
    assert_clean(memory.root)
    monkeypatch.undo()
    assert invoke("persist", "--flush").exit_code == 0
    assert texts(memory) == ["x", "y"]


def test_an_exchange_whose_subconscious_fails_is_journaled_without_it(memory, monkeypatch):
    from souveraine.tempos import persist as tempo
    from souveraine.tempos.transcripts import Exchange

    def broken(*args, **kwargs):
        raise RuntimeError("the ledger is confused")

    monkeypatch.setattr(tempo, "_subconscious", broken)
    result = tempo.persist(memory, Exchange(user="Will you?", assistant="I'll send it tomorrow."))
    assert (result.kept, result.n1, [t["role"] for t in result.turns]) == (False, False, ["user", "assistant"])
    assert texts(memory) == ["Will you?", "I'll send it tomorrow."]
    assert spool.entries(memory) == []
    assert_clean(memory.root)


def test_an_exchange_that_cannot_be_journaled_waits_and_others_pass(memory, monkeypatch):
    from souveraine.tempos import persist as tempo
    from souveraine.tempos.transcripts import Exchange

    real = tempo._journal

    def picky(change, exchange, given=True):
        if exchange.assistant == "poison":
            raise RuntimeError("cannot")
        return real(change, exchange, given)

    monkeypatch.setattr(tempo, "_journal", picky)
    bad = tempo.persist(memory, Exchange(assistant="poison"))
    assert bad.kept and "failed twice (RuntimeError: cannot)" in bad.reason
    good = tempo.persist(memory, Exchange(assistant="fine"))
    assert (good.kept, texts(memory)) == (False, ["fine"])
    [waiting] = spool.entries(memory)
    assert (waiting.record["exchange"]["assistant"], waiting.attempts) == ("poison", 2)
    assert_clean(memory.root)


def test_the_turn_keeps_the_time_it_was_said_not_the_time_it_was_committed(invoke, memory, monkeypatch):
    invoke("persist", "--user", "early", "--assistant", "yes", "--no-commit")
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T18:00:00+00:00")
    invoke("persist", "--user", "late", "--assistant", "no")
    assert [t.at.strftime("%H:%M") for t in journal.read_day(memory.root, DAY)] == ["14:32", "14:32", "18:00", "18:00"]


def test_spool_entries_sort_in_arrival_order(memory):
    names = [spool.put(memory, {"kind": "test", "n": n}).name for n in range(5)]
    assert [e.record["n"] for e in spool.entries(memory)] == list(range(5))
    assert [e.name for e in spool.entries(memory, upto=names[2])] == names[:3]


@pytest.fixture
def silent_model():
    """A model endpoint that accepts connections and never answers."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def short_tempos(memory, mode: str, endpoint: str = "") -> None:
    config = memory.root / "souveraine.toml"
    text = config.read_text().replace("message_interval = 25", "message_interval = 2")
    text = text.replace('tempos = "detached"', f'tempos = "{mode}"')
    text = text.replace('endpoint = ""\nmodel = ""', f'endpoint = "{endpoint}"\nmodel = "silent"\ntimeout = 1\nretries = 0')
    config.write_text(text)
    git(memory.root, "commit", "-qam", "chore(config): reflect every two messages")


def test_a_model_that_never_answers_never_holds_the_turn_nor_the_lock(memory, silent_model):
    from souveraine.tempos import followup
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    short_tempos(memory, "detached", silent_model)
    result = persist(memory, Exchange(user="Hello?", assistant="Hello."))
    assert (result.kept, result.reflection_due, result.ran["reflection"]["status"]) == (False, True, "started")
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "chore(journal): persist 2 turns at 14:32"
    with memory.lock(timeout=5):    # the runner waits on the model without the lock
        pass
    os.waitpid(result.ran["reflection"]["pid"], 0)
    state = json.loads((memory.cache / followup.STATE).read_text())
    assert state["reflection"]["failures"] == 1 and "did not answer within 1 s" in state["reflection"]["error"]
    assert "reflection: failed" in (memory.cache / followup.LOG).read_text()
    again = persist(memory, Exchange(user="Again?", assistant="Again."))
    assert again.ran["reflection"]["status"] == "backing off"
    voice = (memory.root / "system/metacognition/subconscious.md").read_text()
    assert voice.count("The reflection failed (1 time(s) in a row)") == 1
    persist(memory, Exchange(user="Third?", assistant="Third."))
    voice = (memory.root / "system/metacognition/subconscious.md").read_text()
    assert voice.count("The reflection failed") == 1, "told once"
    assert texts(memory) == ["Hello?", "Hello.", "Again?", "Again.", "Third?", "Third."]
    assert_clean(memory.root)


def test_the_backoff_doubles_and_a_success_clears_it(memory):
    from souveraine.tempos import followup

    first = followup.failed(memory, "archive", "no")
    second = followup.failed(memory, "archive", "no")
    state = json.loads((memory.cache / followup.STATE).read_text())["archive"]
    assert state["failures"] == 2 and state["retry_after"] - time.time() > 100
    assert followup.backing_off(memory, "archive") == second != first
    followup.succeeded(memory, "archive")
    assert followup.backing_off(memory, "archive") is None


def test_the_scheduler_check_commits_the_spool_and_runs_what_is_due(memory):
    from souveraine.clock.schedule import run_job
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    short_tempos(memory, "scheduler")
    left = persist(memory, Exchange(user="a", assistant="b"))
    assert left.ran == {"reflection": {"status": "left to the scheduler"}}
    persist(memory, Exchange(user="kept", assistant="for later"), commit=False)
    done = run_job(memory, "check")
    assert done["status"] == "done" and done["result"]["spool"]["turns"] == 2
    assert done["result"]["reflection"]["status"] == "done"
    assert git(memory.root, "log", "-1", "--format=%s").strip().startswith("chore(reflect): witness 4 turns")
    assert_clean(memory.root)
