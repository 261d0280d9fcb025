"""The moments bench/crash.py found where a kill -9 lost, doubled or stranded something,
each reproduced: a real persist in a real process, stopped at the moment, killed -9, then
the next command."""

import os
import signal
import subprocess
import sys
import time

import pytest

from souveraine.store import intent, journal, spool
from tests.support import ROOT, assert_clean

ASKED = "Where does Tomás keep the boat?"

# A persist in its own process, as the CLI runs it, that writes ``stopped`` and waits to be
# killed at one moment: ``{where}`` is replaced by a function that stops there.
CHILD = """
import sys, time
from pathlib import Path
from souveraine.laws import inprocess
from souveraine.store import git, spool
from souveraine.store.memory import Memory
from souveraine.tempos.persist import persist
from souveraine.tempos.transcripts import Exchange

inprocess.enable()
def stop(*args, **kwargs):
    Path(sys.argv[2]).write_text("stopped")
    time.sleep(60)
{where} = stop
persist(Memory(sys.argv[1]), Exchange(user=sys.argv[3], assistant="At Cascais, by the fort."))
"""


@pytest.fixture(autouse=True)
def at_1432(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")


def killed_persist(memory, tmp_path, where: str) -> None:
    """Run a persist in a process of its own, kill it -9 once it reaches ``where``."""
    signal_file = tmp_path / "stopped"
    process = subprocess.Popen([sys.executable, "-c", CHILD.replace("{where}", where), str(memory.root),
                                str(signal_file), ASKED], cwd=ROOT)
    deadline = time.monotonic() + 60
    while not signal_file.exists():
        assert process.poll() is None, "the persist ended before the moment it was to be killed at"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def times_journaled(memory, text: str) -> int:
    return [t.text for t in journal.turns(memory.root)].count(text)


def test_a_persist_killed_after_its_commit_is_not_journaled_again_by_the_next(memory, invoke, tmp_path):
    killed_persist(memory, tmp_path, "spool.remove")
    assert times_journaled(memory, ASKED) == 1            # committed…
    assert len(spool.entries(memory)) == 1                 # …and still in the spool when the kill came
    done = invoke("persist", "--user", "And the oars?", "--assistant", "In the shed.")
    assert done.exit_code == 0, done.output
    assert times_journaled(memory, ASKED) == 1
    assert times_journaled(memory, "And the oars?") == 1
    assert spool.entries(memory) == [] and intent.left(memory) == []
    assert_clean(memory.root)


def test_a_persist_killed_just_before_its_commit_is_journaled_once_by_the_next(memory, invoke, tmp_path):
    killed_persist(memory, tmp_path, "git.commit")
    assert times_journaled(memory, ASKED) == 1            # written, not committed
    done = invoke("persist", "--user", "And the oars?", "--assistant", "In the shed.")
    assert done.exit_code == 0, done.output
    assert times_journaled(memory, ASKED) == 1
    assert ASKED in subprocess.run(["git", "-C", str(memory.root), "show", "HEAD"], capture_output=True,
                                   text=True).stdout
    assert spool.entries(memory) == [] and intent.left(memory) == []
    assert_clean(memory.root)


def test_a_change_killed_before_its_first_line_is_mended_by_the_next_command(memory, invoke):
    """Killed between making its folder and writing its record: the folder's name says whose."""
    code = ("import sys, time\nfrom souveraine.store.intent import Intent\nfrom souveraine.store.memory import Memory\n"
            "Intent(Memory(sys.argv[1])).where.mkdir(parents=True)\nprint('made', flush=True)\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code, str(memory.root)], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "made"
    [folder] = list((memory.cache / "changes").iterdir())
    assert intent.left(memory) == []                       # its process lives: not a leftover yet
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert [left.where for left in intent.left(memory)] == [folder]
    done = invoke("remember", "Tomás keeps the boat at Cascais.")
    assert done.exit_code == 0, done.output
    assert not folder.exists()
