import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from souveraine.agents import integrate
from souveraine.store import journal
from souveraine.tempos import inbox
from tests.support import ROOT, assert_clean

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLAUDE = ROOT / "tests" / "fixtures" / "claude-code"
LAUNCHER = f"{sys.executable} {ROOT / 'bin' / 'souveraine'}"
EXISTING = {
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
    },
}


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(EXISTING, indent=4))
    return folder


def settings(project: Path) -> dict:
    return json.loads((project / ".claude" / "settings.json").read_text())


def wire(invoke, project, *extra):
    done = invoke("integrate", "claude-code", "--project", str(project), "--souveraine", LAUNCHER, *extra)
    assert done.exit_code == 0, done.output
    return done


def command_of(data: dict, event: str) -> str:
    [ours] = [h["command"] for group in data["hooks"][event] for h in group["hooks"] if "souveraine" in h["command"]]
    return ours


def test_merge_keeps_every_other_setting_and_is_idempotent(invoke, memory, project):
    wire(invoke, project)
    first = (project / ".claude" / "settings.json").read_bytes()
    data = settings(project)
    assert data["permissions"] == EXISTING["permissions"] and data["env"] == EXISTING["env"]
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    assert data["hooks"]["Stop"][0] == EXISTING["hooks"]["Stop"][0], "the user's own Stop hook stays first"
    root = str(memory.root)
    assert data["hooks"]["SessionStart"] == [{"matcher": "startup|resume|clear|compact", "hooks": [
        {"type": "command", "command": f"{LAUNCHER} --memory {root} wake --max-chars 9500 --serve", "timeout": 30}]}]
    assert command_of(data, "UserPromptSubmit") == f"{LAUNCHER} --memory {root} surface"
    assert command_of(data, "Stop") == f"{LAUNCHER} --memory {root} persist --claude-code"
    assert command_of(data, "PreCompact") == \
        f"{LAUNCHER} --memory {root} reflect --force; {LAUNCHER} --memory {root} archive --force"
    done = wire(invoke, project, "--json")
    assert json.loads(done.output)["changed"] is False
    assert (project / ".claude" / "settings.json").read_bytes() == first


def test_hooks_written_before_are_updated_in_place(invoke, memory, project, tmp_path):
    old = {"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo before"},
        {"type": "command", "command": "/old/bin/souveraine --memory /old/memory surface", "timeout": 5},
        {"type": "command", "command": "/old/bin/souveraine --memory '/other one' surface"}]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(old))
    wire(invoke, project)
    [group] = settings(project)["hooks"]["UserPromptSubmit"]
    assert group["hooks"] == [{"type": "command", "command": "echo before"},
                              {"type": "command", "command": f"{LAUNCHER} --memory {memory.root} surface", "timeout": 30}]


def test_a_new_project_and_the_local_file(invoke, memory, tmp_path):
    wire(invoke, tmp_path / "fresh", "--local")
    data = json.loads((tmp_path / "fresh" / ".claude" / "settings.local.json").read_text())
    assert sorted(data["hooks"]) == ["PreCompact", "SessionStart", "Stop", "UserPromptSubmit"]
    assert not (tmp_path / "fresh" / ".claude" / "settings.json").exists()


@pytest.mark.parametrize("text, message", [
    ("{not json", "is not valid JSON"),
    ('{"hooks": []}', "'hooks' must be an object; fix it, then run integrate again"),
    ('{"hooks": {"Stop": {}}}', "'hooks.Stop' must be a list; fix it, then run integrate again"),
])
def test_a_broken_settings_file_is_left_alone(invoke, project, text, message):
    path = project / ".claude" / "settings.json"
    path.write_text(text)
    done = invoke("integrate", "claude-code", "--project", str(project))
    assert done.exit_code == 2
    assert message in done.output
    assert path.read_text() == text


def run_hook(project: Path, event: str, payload: dict) -> subprocess.CompletedProcess:
    """The hook as Claude Code runs it: its command through a shell, the payload on stdin, in the project."""
    return subprocess.run(["bash", "-c", command_of(settings(project), event)], input=json.dumps(payload),
                          capture_output=True, text=True, cwd=project)


def test_payloads_drive_the_real_commands(invoke, memory, project, tmp_path, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:14+00:00")
    wire(invoke, project)
    inbox.add(memory, "The deploy key expires Friday", "high")

    prompt = json.loads((FIXTURES / "user_prompt_submit.json").read_text())
    done = run_hook(project, "UserPromptSubmit", prompt)
    assert (done.returncode, done.stdout) == (0, "[surfacing: high: The deploy key expires Friday]\n"), done.stderr

    transcript = tmp_path / "5d7f2c1e.jsonl"
    shutil.copy(CLAUDE / "transcript.jsonl", transcript)
    stop = {**json.loads((CLAUDE / "stop.json").read_text()), "transcript_path": str(transcript)}
    done = run_hook(project, "Stop", stop)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    user, tools, assistant = journal.read_day(memory.root, "journal/2026/11/2026-11-30.md")
    assert (user.session, assistant.text) == (stop["session_id"], stop["last_assistant_message"])
    assert run_hook(project, "Stop", stop).returncode == 0
    assert len(journal.read_day(memory.root, "journal/2026/11/2026-11-30.md")) == 3, "fired again: nothing new"

    done = run_hook(project, "PreCompact", json.loads((FIXTURES / "pre_compact.json").read_text()))
    assert done.returncode == 0, done.stderr

    done = run_hook(project, "SessionStart", json.loads((FIXTURES / "session_start.json").read_text()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Wake — ada\n"), "plain stdout: Claude Code adds it to the context"
    assert_clean(memory.root)


def test_is_ours_knows_our_commands_only():
    [stop] = [h for h in integrate.claude_code_agent().hooks if h.event == "Stop"]
    assert integrate.is_ours("/usr/bin/souveraine --memory ~/m persist --claude-code", stop)
    assert integrate.is_ours("python -m souveraine --memory '/a b' persist --claude-code", stop)
    assert not integrate.is_ours("souveraine --memory ~/m persist", stop)
    assert not integrate.is_ours("mytool --memory ~/m persist --claude-code", stop)
    assert not integrate.is_ours("notify-send done", stop)


def test_mcp_declares_the_server_beside_the_others(invoke, memory, project):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "other-server"}}}))
    done = wire(invoke, project, "--mcp", "--json")
    hooks, server = json.loads(done.output)
    assert hooks["changed"] and server["changed"]
    data = json.loads((project / ".mcp.json").read_text())
    assert data["mcpServers"]["other"] == {"command": "other-server"}
    assert data["mcpServers"]["souveraine"] == {
        "command": sys.executable, "args": [str(ROOT / "bin" / "souveraine"), "--memory", str(memory.root), "mcp"]}
    again = json.loads(wire(invoke, project, "--mcp", "--json").output)
    assert [r["changed"] for r in again] == [False, False]
