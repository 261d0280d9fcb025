import json
import shutil
from pathlib import Path

import pytest

from souveraine.store import journal
from souveraine.tempos import inbox
from tests.support import ROOT, assert_clean

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLAUDE = ROOT / "tests" / "fixtures" / "claude-code"
DAY = "journal/2026/11/2026-11-30.md"


def payload(name: str, **changes) -> str:
    return json.dumps({**json.loads((FIXTURES / name).read_text()), **changes})


@pytest.fixture(autouse=True)
def at_1432(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:14+00:00")


def test_before_agent_answers_with_the_surfacing_as_context(invoke, memory):
    inbox.add(memory, "The deploy key expires Friday", "high")
    done = invoke("integrate", "hook", input=payload("gemini_before_agent.json"))
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) == {"hookSpecificOutput": {
        "hookEventName": "BeforeAgent", "additionalContext": "[surfacing: high: The deploy key expires Friday]"}}
    done = invoke("integrate", "hook", input=payload("user_prompt_submit.json"))
    assert json.loads(done.output) == {}, "nothing waits: nothing to add"


def test_after_agent_persists_geminis_exchange(invoke, memory):
    done = invoke("integrate", "hook", input=payload("gemini_after_agent.json"))
    assert (done.exit_code, json.loads(done.output)) == (0, {})
    user, assistant = journal.read_day(memory.root, DAY)
    assert user.text == "Where is the staging server again?"
    assert assistant.text == "At 10.0.0.5, since you moved it this morning."
    assert assistant.session == "c6e1b0f2-3d4a-4b5c-8d9e-0f1a2b3c4d5e"
    assert_clean(memory.root)


def test_codex_stop_persists_the_last_answer(invoke, memory):
    done = invoke("integrate", "hook", input=payload("codex_stop.json"))
    assert (done.exit_code, json.loads(done.output)) == (0, {})
    [assistant] = journal.read_day(memory.root, DAY)
    assert assistant.text.startswith("Staging now points at 10.0.0.5")
    assert any(p.name.startswith("2026-11-30-the-staging-server") for p in (memory.root / "memories").rglob("*.md"))


def test_claude_code_stop_reads_its_transcript(invoke, memory, tmp_path):
    transcript = tmp_path / "5d7f2c1e.jsonl"
    shutil.copy(CLAUDE / "transcript.jsonl", transcript)
    stop = {**json.loads((CLAUDE / "stop.json").read_text()), "transcript_path": str(transcript)}
    done = invoke("integrate", "hook", input=json.dumps(stop))
    assert done.exit_code == 0, done.output
    user, _, _ = journal.read_day(memory.root, DAY)
    assert user.text.startswith("The staging server moved to 10.0.0.5.")


def test_pre_compact_reflects_and_archives(invoke, memory):
    invoke("integrate", "hook", input=payload("gemini_after_agent.json"))
    done = invoke("integrate", "hook", input=payload("pre_compact.json"))
    assert (done.exit_code, json.loads(done.output)) == (0, {})
    assert [t.role for t in journal.read_day(memory.root, DAY)] == ["user", "assistant", "reflection"]
    assert list((memory.root / "system" / "synthesized").glob("*.md"))
    assert_clean(memory.root)


@pytest.mark.parametrize("text, message", [
    ("not json", "the hook's payload on stdin is not JSON; wire this command to an agent's hook"),
    ('{"hook_event_name": "Notification"}', "no tempo answers the hook event 'Notification'"),
    ('{"hook_event_name": "Stop", "session_id": "x"}', "the hook's payload holds no answer to persist"),
])
def test_a_payload_it_cannot_answer_exits_1_never_2(invoke, text, message):
    done = invoke("integrate", "hook", input=text)
    assert done.exit_code == 1, "exit 2 would block the agent"
    assert message in done.output


def test_session_start_answers_with_the_wake_as_context(invoke):
    done = invoke("integrate", "hook", input=payload("session_start.json"))
    assert done.exit_code == 0, done.output
    answer = json.loads(done.output)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert answer["additionalContext"].startswith("# Wake — ada\n")
