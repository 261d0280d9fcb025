"""`integrate codex` and `integrate gemini`: each agent's documented hook configuration, merged, and run."""

import json
import subprocess
import sys

import pytest

from tests.support import ROOT, assert_clean

LAUNCHER = f"{sys.executable} {ROOT / 'bin' / 'souveraine'}"
# The events each agent documents (Codex: developers.openai.com/codex/hooks; Gemini: geminicli.com/docs/hooks).
CODEX_EVENTS = {"SessionStart", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact",
                "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop"}
GEMINI_EVENTS = {"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
                 "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"}


def wire(invoke, agent, project, *extra):
    done = invoke("integrate", agent, "--project", str(project), "--souveraine", LAUNCHER, *extra)
    assert done.exit_code == 0, done.output
    return done


def handlers(data: dict, event: str) -> list[dict]:
    return [h for group in data["hooks"][event] for h in group["hooks"]]


def check_codex_format(data: dict) -> None:
    """hooks.json as Codex reads it: event → matcher groups → command handlers, timeouts in seconds."""
    assert set(data) == {"hooks"} and data["hooks"] and set(data["hooks"]) <= CODEX_EVENTS
    for groups in data["hooks"].values():
        assert isinstance(groups, list) and groups
        for group in groups:
            assert isinstance(group["hooks"], list) and group["hooks"]
            assert isinstance(group.get("matcher", ""), str)
            for handler in group["hooks"]:
                assert handler["type"] == "command" and isinstance(handler["command"], str) and handler["command"]
                assert isinstance(handler.get("timeout", 0), int) and handler.get("timeout", 0) >= 0
                assert isinstance(handler.get("statusMessage", ""), str)


def check_gemini_format(data: dict) -> None:
    """settings.json's hooks as Gemini reads them: event → definitions → command hooks, timeouts in ms."""
    assert set(data["hooks"]) <= GEMINI_EVENTS
    for groups in data["hooks"].values():
        for group in groups:
            assert set(group) <= {"matcher", "sequential", "hooks"} and group["hooks"]
            for handler in group["hooks"]:
                assert set(handler) <= {"type", "command", "name", "timeout", "description"}
                assert handler["type"] == "command" and handler["command"] and isinstance(handler["timeout"], int)


def run(command: str, payload: dict, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True, cwd=cwd)


def test_codex_hooks_json_is_written_in_codex_format_and_merged(invoke, memory, tmp_path):
    project = tmp_path / "app"
    (project / ".codex").mkdir(parents=True)
    theirs = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [theirs]}}))
    wire(invoke, "codex", project)
    path = project / ".codex" / "hooks.json"
    data = json.loads(path.read_text())
    check_codex_format(data)
    assert data["hooks"]["PreToolUse"] == [theirs]
    assert sorted(data["hooks"]) == ["PreCompact", "PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"]
    stop = handlers(data, "Stop")
    assert stop == [{"type": "command", "command": f"{LAUNCHER} --memory {memory.root} integrate hook",
                     "timeout": 60, "statusMessage": "Persisting the exchange"}]
    first = path.read_bytes()
    again = json.loads(wire(invoke, "codex", project, "--json").output)
    assert (again["changed"], path.read_bytes()) == (False, first)


def test_codex_session_start_answers_in_codex_output_shape(invoke, memory, tmp_path):
    wire(invoke, "codex", tmp_path)
    data = json.loads((tmp_path / ".codex" / "hooks.json").read_text())
    [start] = handlers(data, "SessionStart")
    payload = {"session_id": "0199a6c2", "transcript_path": None, "cwd": str(tmp_path), "hook_event_name":
               "SessionStart", "model": "gpt-5-codex", "permission_mode": "default", "source": "startup"}
    done = run(start["command"], payload, tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert set(answer) == {"hookSpecificOutput"} and set(answer["hookSpecificOutput"]) == {"hookEventName",
                                                                                            "additionalContext"}
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert answer["hookSpecificOutput"]["additionalContext"].startswith("# Wake — ada\n")


def test_gemini_settings_are_written_in_gemini_format_and_merged(invoke, memory, tmp_path):
    project = tmp_path / "app"
    (project / ".gemini").mkdir(parents=True)
    theirs = {"matcher": "write_file|replace", "hooks": [
        {"name": "security-check", "type": "command", "command": "./security.sh", "timeout": 5000}]}
    settings = {"model": {"name": "gemini-2.5-pro"}, "hooks": {"BeforeTool": [theirs]}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    wire(invoke, "gemini", project)
    path = project / ".gemini" / "settings.json"
    data = json.loads(path.read_text())
    check_gemini_format(data)
    assert data["model"] == settings["model"] and data["hooks"]["BeforeTool"] == [theirs]
    assert sorted(data["hooks"]) == ["AfterAgent", "BeforeAgent", "BeforeTool", "PreCompress", "SessionStart"]
    assert handlers(data, "AfterAgent") == [{
        "name": "souveraine-AfterAgent", "type": "command",
        "command": f"{LAUNCHER} --memory {memory.root} integrate hook", "timeout": 60000,
        "description": "Persist the exchange to the journal"}]
    assert data["hooksConfig"] == {"enabled": True}
    first = path.read_bytes()
    assert json.loads(wire(invoke, "gemini", project, "--json").output)["changed"] is False
    assert path.read_bytes() == first


def test_gemini_keeps_a_choice_made_about_hooks(invoke, memory, tmp_path):
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    wire(invoke, "gemini", tmp_path)
    assert json.loads((tmp_path / ".gemini" / "settings.json").read_text())["hooksConfig"] == {"enabled": False}


def test_gemini_hooks_print_json_only(invoke, memory, tmp_path, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:14+00:00")
    wire(invoke, "gemini", tmp_path)
    data = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    base = {"session_id": "c6e1b0f2", "transcript_path": "", "cwd": str(tmp_path), "timestamp": "2026-11-30T14:32:14Z"}
    start = run(handlers(data, "SessionStart")[0]["command"],
                {**base, "hook_event_name": "SessionStart", "source": "startup"}, tmp_path)
    assert start.returncode == 0, start.stderr
    assert json.loads(start.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    after = run(handlers(data, "AfterAgent")[0]["command"],
                {**base, "hook_event_name": "AfterAgent", "prompt": "Where is staging?",
                 "prompt_response": "At 10.0.0.5.", "stop_hook_active": False}, tmp_path)
    assert (after.returncode, json.loads(after.stdout)) == (0, {}), after.stderr
    assert "At 10.0.0.5." in (memory.root / "journal/2026/11/2026-11-30.md").read_text()
    assert_clean(memory.root)


@pytest.mark.parametrize("agent, file", [("codex", ".codex/hooks.json"), ("gemini", ".gemini/settings.json")])
def test_a_broken_file_is_left_alone(invoke, tmp_path, agent, file):
    path = tmp_path / file
    path.parent.mkdir()
    path.write_text("{not json")
    done = invoke("integrate", agent, "--project", str(tmp_path))
    assert done.exit_code == 2 and "is not valid JSON; " in done.output or "is not valid JSON (" in done.output
    assert path.read_text() == "{not json"
