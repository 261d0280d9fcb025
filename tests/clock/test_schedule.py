import shlex
import threading
import time
from datetime import datetime, timedelta

import pytest

from souveraine.clock import cron, schedule
from souveraine.errors import ConfigError
from souveraine.store.memory import Memory


@pytest.fixture
def recorded(monkeypatch):
    """Replace the tempos' jobs by ones that record their calls (the scheduler is under test)."""
    calls = []

    def job(name):
        def run(memory):
            calls.append((name, threading.get_ident()))
            return {"ran": name}
        return run

    tempos = {n: schedule.Tempo(n, t.about, job(n)) for n, t in schedule.TEMPOS.items()}
    monkeypatch.setattr(schedule, "TEMPOS", tempos)
    return calls


def test_list_gives_each_tempo_its_next_run(memory):
    monday = datetime(2026, 11, 25, 12, 0).astimezone()
    rows = {r["tempo"]: r for r in schedule.next_runs(memory, monday)}
    assert set(rows) == {"digest", "defrag", "learnings", "refresh", "check", "sync"}     # doctor's audit is the refresh's
    assert datetime.fromisoformat(rows["digest"]["next"]).strftime("%A %H:%M") == "Monday 09:00"
    assert datetime.fromisoformat(rows["refresh"]["next"]).strftime("%m-%d %H:%M") == "01-01 04:00"
    assert datetime.fromisoformat(rows["learnings"]["next"]).strftime("%m-%d %H:%M") == "12-01 05:00"


def test_an_empty_expression_switches_a_tempo_off(memory):
    path = memory.root / "souveraine.toml"
    path.write_text(path.read_text().replace('defrag = "0 3 1 * *"', 'defrag = ""'))
    assert "defrag" not in schedule.configured(Memory(memory.root))


def test_a_bad_expression_names_the_key(memory):
    path = memory.root / "souveraine.toml"
    path.write_text(path.read_text().replace('digest = "0 9 * * 1"', 'digest = "0 9 * *"'))
    with pytest.raises(ConfigError, match=r"\[schedule\] digest '0 9 \* \*' must have five fields"):
        schedule.configured(Memory(memory.root))


def test_crontab_lines_match_the_configuration(memory):
    lines = schedule.crontab(memory)
    assert lines[0].startswith("#")
    configured = schedule.configured(memory)
    assert len(lines) - 1 == len(configured)
    for line, (name, expression) in zip(lines[1:], configured.items()):
        fields = line.split()
        assert " ".join(fields[:5]) == expression
        cron.split(" ".join(fields[:5]))
        words = shlex.split(line[len(expression):])
        assert words[-6:-2] == ["schedule", "once", name, ">>"] or words[-5:-2] == ["once", name, ">>"]
        assert str(memory.root) in words and words[-1] == "2>&1"
        assert all(w.startswith("/") for w in words if w.endswith(("python", "python3")))


def test_missed_runs_coalesce_into_one(memory, recorded):
    sched = schedule.scheduler(memory, blocking=False)
    job = sched.get_job("check")
    sched.start(paused=True)
    # The laptop slept through six half-hourly runs.
    job.modify(next_run_time=datetime.now().astimezone() - timedelta(hours=3))
    sched.resume()
    deadline = time.monotonic() + 5
    while not recorded and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    sched.shutdown(wait=True)
    assert [name for name, _ in recorded] == ["check"]


def test_a_second_run_skips_while_the_lock_is_held(memory, recorded):
    held = threading.Event()
    release = threading.Event()

    def hold():
        with Memory(memory.root).lock():
            held.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    try:
        result = schedule.run_job(memory, "digest", on_busy="skip")
    finally:
        release.set()
        holder.join()
    assert result["status"] == "skipped" and result["reason"] == "busy"
    assert recorded == []


def test_a_second_run_waits_for_the_lock_when_told_to(memory, recorded):
    held = threading.Event()

    def hold():
        with Memory(memory.root).lock():
            held.set()
            time.sleep(0.3)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    result = schedule.run_job(memory, "digest", on_busy="wait")
    holder.join()
    assert result["status"] == "done"
    assert [name for name, _ in recorded] == ["digest"]


def test_once_runs_a_tempo_through_the_cli(memory, invoke, recorded):
    result = invoke("schedule", "once", "doctor", "--json")
    assert result.exit_code == 0
    assert '"status": "done"' in result.stdout
    assert [name for name, _ in recorded] == ["doctor"]


def test_unknown_tempo_is_a_usage_error(memory, invoke):
    result = invoke("schedule", "once", "nap")
    assert result.exit_code == 2


def test_bare_schedule_lists(memory, invoke):
    import json

    result = invoke("schedule", "--json")
    assert result.exit_code == 0
    assert [row["tempo"] for row in json.loads(result.stdout)] == ["digest", "defrag", "learnings", "refresh", "check", "sync"]


def test_a_failing_job_becomes_an_inbox_item(memory, monkeypatch):
    from souveraine.tempos import inbox
    from tests.support import assert_clean

    def broken(memory):
        raise RuntimeError("the disk is full")

    monkeypatch.setitem(schedule.TEMPOS, "digest", schedule.Tempo("digest", "x", broken))
    result = schedule.run_job(memory, "digest")
    assert result["status"] == "failed" and result["error"] == "the disk is full"
    items = inbox.items(memory, "pending")
    assert len(items) == 1 and items[0]["urgency"] == "high"
    assert "Scheduled digest failed" in items[0]["text"] and "the disk is full" in items[0]["text"]
    assert_clean(memory.root)


def test_the_real_jobs_run_on_a_fresh_memory(memory):
    for name in ("doctor", "digest"):
        assert schedule.run_job(memory, name)["status"] == "done", name


def test_the_check_verifies_new_commits_and_tells_the_agent_of_a_new_breach_once(memory):
    from souveraine.tempos import inbox
    from tests.support import git

    first = schedule.run_job(memory, "check")["result"]["verify"]
    assert first["breaches"] == 0 and first["judged"] == first["commits"]
    (memory.root / "notes.md").write_text("---\ntitle: [unclosed\n---\nby hand\n")
    git(memory.root, "add", "-A")
    git(memory.root, "commit", "-q", "--no-verify", "-m", "docs: by hand")
    second = schedule.run_job(memory, "check")["result"]["verify"]
    assert (second["judged"], second["new"]) == (1, 1)
    items = inbox.items(memory, "pending")
    assert len(items) == 1 and "verify found 1 new breach(es)" in items[0]["text"] and "notes.md" in items[0]["text"]
    third = schedule.run_job(memory, "check")["result"]["verify"]
    assert (third["judged"], third["breaches"], third["new"]) == (0, 1, 0)   # the inbox's commit was the tool's
    assert len(inbox.items(memory, "pending")) == 1
