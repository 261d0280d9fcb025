"""A session's start warms recall: the real hooks start the real recall server, in its own process.

The SessionStart hooks (`wake --serve` for Claude Code, `integrate hook` for Codex and Gemini)
start `souveraine serve` in the background where recall can use sentence vectors, and never
wait for it: the hook's output is the wake alone, and a second start leaves the first server be.
"""

import json
import os
import shutil
import subprocess
import time

import pytest

from souveraine.recall import semantic, server, warm
from tests.agents.test_integrate import LAUNCHER, command_of, settings, wire

needs_model = pytest.mark.skipif(not semantic.available(),
                                 reason=f"the sentence encoder is not installed ({semantic.INSTALL})")
START = {"session_id": "5d7f2c1e", "hook_event_name": "SessionStart", "source": "startup"}


def hook(command: str, cwd, payload=START) -> subprocess.CompletedProcess:
    """The hook as an agent runs it: its command through a shell, the payload on stdin, servers allowed."""
    env = {k: v for k, v in os.environ.items() if k != warm.OFF}
    return subprocess.run(["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=60)


def listening(root, within: float = 30.0) -> dict:
    deadline = time.monotonic() + within
    while (answer := warm.talk(root, {"op": "ping"}, 5)) is None:
        assert time.monotonic() < deadline, "no recall server answered after the session's start"
        time.sleep(0.05)
    return answer


def semantic_setting(memory, value: str) -> None:
    config = memory.root / "souveraine.toml"
    config.write_text(config.read_text() + f"\n[recall]\nsemantic = {value}\n")


@needs_model
def test_claude_codes_session_start_starts_the_server_once_and_says_nothing_of_it(invoke, memory, tmp_path,
                                                                                 monkeypatch):
    project = tmp_path / "project"
    wire(invoke, project)
    command = command_of(settings(project), "SessionStart")
    assert command.endswith(" wake --max-chars 9500 --serve")
    alone = invoke("wake", "--max-chars", "9500").output
    try:
        done = hook(command, project)
        assert (done.returncode, done.stdout, done.stderr) == (0, alone, "")      # the wake, and only the wake
        first = listening(memory.root)
        assert first["memory"] == str(memory.root)
        again = hook(command, project)
        assert (again.returncode, again.stdout) == (0, alone)
        monkeypatch.delenv(warm.OFF)
        assert warm.ahead(memory) is False, "one listens: nothing more is started"
        assert listening(memory.root)["pid"] == first["pid"]
        log = (memory.root / ".souveraine" / warm.LOG).read_text()
        assert "already runs" not in log, log
    finally:
        server.stop(memory.root)
    assert warm.read_record(memory.root) is None


@needs_model
def test_integrate_hooks_session_start_starts_it_too(memory, tmp_path):
    command = f"{LAUNCHER} --memory {memory.root} integrate hook"
    try:
        done = hook(command, tmp_path, {**START, "hook_event_name": "SessionStart"})
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)            # JSON alone on stdout, as Gemini requires
        assert answer["hookSpecificOutput"]["additionalContext"].startswith("# Wake — ada\n")
        assert listening(memory.root)["served"] == 0
    finally:
        server.stop(memory.root)


@pytest.mark.parametrize("why", ["semantic = false", "SOUVERAINE_NO_SERVER", "the extra missing"])
def test_where_vectors_cannot_serve_no_server_is_started(memory, monkeypatch, why):
    if why == "the extra missing" and semantic.available():
        pytest.skip("the sentence encoder is installed here")
    if why == "semantic = false":
        semantic_setting(memory, "false")
    if why != "SOUVERAINE_NO_SERVER":
        monkeypatch.delenv(warm.OFF)
    assert warm.ahead(memory) is False
    assert not (memory.root / ".souveraine" / warm.LOG).exists(), "nothing was spawned"
    assert warm.read_record(memory.root) is None


def test_a_broken_setting_leaves_the_wake_alone(memory, tmp_path):
    semantic_setting(memory, '"sometimes"')
    done = hook(f"{LAUNCHER} --memory {memory.root} wake --serve", tmp_path)
    assert not (memory.root / ".souveraine" / warm.LOG).exists()
    wake = hook(f"{LAUNCHER} --memory {memory.root} wake", tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, wake.stdout, "")
    assert wake.stdout.startswith("# Wake — ada\n")


@needs_model
def test_the_mcp_server_starts_a_recall_server_to_fill_the_vectors(memory, monkeypatch):
    """The MCP server answers recalls itself, but the vectors its documents lack are computed
    by a recall server it starts in the background: a real process, found listening."""
    from souveraine.agents import server as mcp_server

    monkeypatch.delenv(warm.OFF)
    try:
        shutil.rmtree(memory.root / ".souveraine", ignore_errors=True)     # nothing cached yet: the folder too
        mcp_server._keep_warm(memory.root)
        assert listening(memory.root)["memory"] == str(memory.root)
    finally:
        server.stop(memory.root)
        warm._here = False              # this test's process answers its own recalls no more
