"""A Stop hook fired again — or with the other payload variant, or twice at once — persists its exchange once."""

import json
import shutil
import subprocess
import sys

import pytest

from souveraine.store import journal
from tests.support import ROOT, assert_clean, git

CLAUDE = ROOT / "tests" / "fixtures" / "claude-code"
DAY = "journal/2026/11/2026-11-30.md"
SOUVERAINE = [sys.executable, str(ROOT / "bin" / "souveraine")]


@pytest.fixture(autouse=True)
def at_1432(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:14+00:00")


@pytest.fixture
def stop(tmp_path) -> dict:
    transcript = tmp_path / "5d7f2c1e.jsonl"
    shutil.copy(CLAUDE / "transcript.jsonl", transcript)
    return {**json.loads((CLAUDE / "stop.json").read_text()), "transcript_path": str(transcript)}


def roles(memory) -> list[str]:
    return [t.role for t in journal.read_day(memory.root, DAY)]


def memories_made(memory) -> list[str]:
    return sorted(p.name for p in (memory.root / "memories").rglob("2026-11-30-*.md"))


def test_a_refired_stop_journals_and_remembers_one_exchange(invoke, memory, stop):
    commits = int(git(memory.root, "rev-list", "--count", "HEAD"))
    first = json.loads(invoke("persist", "--claude-code", "--json", input=json.dumps(stop)).output)
    assert first["duplicate"] is False and roles(memory) == ["user", "tool", "assistant"]
    made = memories_made(memory)
    assert len(made) == 1, "the promise to remember is kept once"
    variants = [stop, stop, {k: v for k, v in stop.items() if k != "last_assistant_message"},
                {**stop, "stop_hook_active": True}]
    for variant in variants:
        again = invoke("persist", "--claude-code", "--json", input=json.dumps(variant))
        assert again.exit_code == 0, again.output
        assert json.loads(again.output)["duplicate"] is True
    assert roles(memory) == ["user", "tool", "assistant"]
    assert memories_made(memory) == made
    assert int(git(memory.root, "rev-list", "--count", "HEAD")) == commits + 1
    assert_clean(memory.root)


def test_tool_calls_are_one_line_each_tool_and_target_never_output(invoke, memory, stop):
    invoke("persist", "--claude-code", input=json.dumps(stop))
    day = (memory.root / DAY).read_text()
    [tools] = [t for t in journal.read_day(memory.root, DAY) if t.role == "tool"]
    assert tools.text.splitlines() == ["- Edit `config/staging.toml`",
                                       "- Bash `git commit -am 'chore(config): staging moved to 10.0.0.5'`"]
    assert "has been updated" not in day and "1 file changed" not in day, "no tool output"
    assert "old_string" not in day and "10.0.0.4" not in day, "no tool input beyond the target"


def test_the_next_prompt_of_the_session_is_a_new_exchange(invoke, memory, stop):
    invoke("persist", "--claude-code", input=json.dumps(stop))
    with open(stop["transcript_path"], "a") as transcript:
        for line in (
            {"type": "user", "uuid": "0b8e6c1a-0000-4000-8000-000000000015", "isSidechain": False,
             "sessionId": stop["session_id"], "timestamp": "2026-11-30T14:40:00.000Z",
             "message": {"role": "user", "content": "Thanks. Anything else to change?"}},
            {"type": "assistant", "uuid": "0b8e6c1a-0000-4000-8000-000000000016", "isSidechain": False,
             "sessionId": stop["session_id"], "timestamp": "2026-11-30T14:40:03.000Z",
             "message": {"role": "assistant", "content": [{"type": "text", "text": "No, that was the only host."}]}},
        ):
            transcript.write(json.dumps(line) + "\n")
    later = {**stop, "last_assistant_message": "No, that was the only host."}
    assert json.loads(invoke("persist", "--claude-code", "--json", input=json.dumps(later)).output)["duplicate"] is False
    assert roles(memory) == ["user", "tool", "assistant", "user", "assistant"]


def test_two_stops_at_once_persist_one_exchange(memory, stop):
    """The same hook wired in two settings files: Claude Code runs both at once."""
    command = [*SOUVERAINE, "--memory", str(memory.root), "persist", "--claude-code"]
    running = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for _ in range(2)]
    for process in running:
        process.stdin.write(json.dumps(stop))
        process.stdin.close()
    assert [process.wait(timeout=60) for process in running] == [0, 0], [p.stderr.read() for p in running]
    assert roles(memory) == ["user", "tool", "assistant"]
    assert len(memories_made(memory)) == 1
    assert_clean(memory.root)


def test_codex_stop_pairs_the_prompt_of_its_turn_once(invoke, memory):
    base = {"session_id": "0199a6c2", "transcript_path": None, "cwd": "/home/ada/notes", "model": "gpt-5-codex",
            "permission_mode": "default", "turn_id": "019d036d-c7fa-72d2-b6fd-78878bfe34e4"}
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "Where is staging now?"}
    assert invoke("integrate", "hook", input=json.dumps(prompt)).exit_code == 0
    stop = {**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "At 10.0.0.5."}
    for _ in range(2):
        done = invoke("integrate", "hook", input=json.dumps(stop))
        assert (done.exit_code, json.loads(done.output)) == (0, {}), done.output
    user, assistant = journal.read_day(memory.root, DAY)
    assert (user.text, assistant.text, assistant.session) == ("Where is staging now?", "At 10.0.0.5.", "0199a6c2")
    assert_clean(memory.root)


def test_gemini_after_agent_twice_is_one_exchange(invoke, memory):
    after = {"session_id": "c6e1b0f2", "transcript_path": "", "cwd": "/home/ada", "hook_event_name": "AfterAgent",
             "prompt": "Where is staging?", "prompt_response": "At 10.0.0.5.", "stop_hook_active": False}
    for stamp in ("2026-11-30T14:32:14.502Z", "2026-11-30T14:32:16.020Z"):
        assert invoke("integrate", "hook", input=json.dumps({**after, "timestamp": stamp})).exit_code == 0
    assert roles(memory) == ["user", "assistant"]
