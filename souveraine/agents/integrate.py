"""Wiring an agent's own hooks to the tempos: Claude Code, Codex CLI and Gemini CLI settings.

``wire(memory, agent, project)`` merges the agent's hooks into its settings file and keeps
everything else as it was:

- **Claude Code** (``.claude/settings.json``): SessionStart → ``wake --max-chars N --serve``
  (its stdout becomes context, and Claude Code keeps at most 10,000 characters of it; then
  the warm recall server starts in the background, where vectors can be used),
  UserPromptSubmit → ``surface``, Stop → ``persist --claude-code``, PreCompact →
  ``reflect --force`` then ``archive --force``.
- **Codex CLI** (``.codex/hooks.json``) and **Gemini CLI** (``.gemini/settings.json``): every
  event → ``integrate hook``, which reads the payload and answers in the JSON both want.

A hook is ours when its command, without the launcher and ``--memory PATH``, names one of
these subcommands; ours are updated in place, never duplicated, so running it twice changes
nothing. The file is replaced atomically, and only when something changed.
"""

import json
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

# Claude Code keeps 10,000 characters of a hook's output (exactly, measured on 2.1.x); past
# that the model sees a 2 KB preview. The margin is for a version that counts differently.
CLAUDE_CODE_CAP = 10_000
CLAUDE_CODE_WAKE_CHARS = 9_500


@dataclass(frozen=True)
class Hook:
    event: str
    commands: tuple[str, ...]       # souveraine subcommands, run one after the other: what makes it ours
    options: str = ""               # added to the last one, and free to change: "--max-chars 9500"
    matcher: str | None = None
    timeout: int = 60               # seconds
    label: str = ""                 # what it does, for agents that show it


@dataclass(frozen=True)
class Agent:
    name: str
    settings: str                   # the settings file, relative to the project (or home)
    hooks: tuple[Hook, ...]
    milliseconds: bool = False      # Gemini CLI's timeouts are in milliseconds

    def entry(self, hook: Hook, command: str) -> dict:
        timeout = hook.timeout * 1000 if self.milliseconds else hook.timeout
        if self.name == "gemini":
            return {"name": f"souveraine-{hook.event}", "type": "command", "command": command,
                    "timeout": timeout, "description": hook.label}
        entry = {"type": "command", "command": command, "timeout": timeout}
        if self.name == "codex":
            entry["statusMessage"] = hook.label
        return entry


def claude_code_agent(max_chars: int = CLAUDE_CODE_WAKE_CHARS, local: bool = False) -> Agent:
    return Agent("claude-code", f".claude/{'settings.local.json' if local else 'settings.json'}", (
        Hook("SessionStart", ("wake",), options=f"--max-chars {max_chars} --serve", matcher="startup|resume|clear|compact", timeout=30),
        Hook("UserPromptSubmit", ("surface",), timeout=30),
        Hook("Stop", ("persist --claude-code",), timeout=60),
        Hook("PreCompact", ("reflect --force", "archive --force"), timeout=300),
    ))


CODEX = Agent("codex", ".codex/hooks.json", (
    Hook("SessionStart", ("integrate hook",), timeout=30, label="Waking the memory"),
    Hook("UserPromptSubmit", ("integrate hook",), timeout=30, label="Surfacing what waits"),
    Hook("Stop", ("integrate hook",), timeout=60, label="Persisting the exchange"),
    Hook("PreCompact", ("integrate hook",), timeout=300, label="Reflecting before compaction"),
))
GEMINI = Agent("gemini", ".gemini/settings.json", (
    Hook("SessionStart", ("integrate hook",), timeout=30, label="Wake: who you are and what matters now"),
    Hook("BeforeAgent", ("integrate hook",), timeout=30, label="Surface a thought that waited"),
    Hook("AfterAgent", ("integrate hook",), timeout=60, label="Persist the exchange to the journal"),
    Hook("PreCompress", ("integrate hook",), timeout=300, label="Reflect and archive before compression"),
), milliseconds=True)
AGENTS = {"codex": CODEX, "gemini": GEMINI}

_MEMORY_OPTION = re.compile(r"^(?P<launcher>.*?)\s--memory\s+(?:'[^']*'|\"[^\"]*\"|\S+)\s+(?P<sub>.+)$")


def launcher() -> str:
    """How a hook calls this installation: this interpreter and launcher by absolute path, else
    `souveraine` as found on PATH, else `python -m souveraine`. The interpreter is named because a
    checkout's bin/souveraine starts whatever `python3` a hook's PATH finds first."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "souveraine" and argv0.is_file():
        return f"{shlex.quote(sys.executable)} {shlex.quote(str(argv0.resolve()))}"
    found = shutil.which("souveraine")
    if found:
        return shlex.quote(found)
    return f"{shlex.quote(sys.executable)} -m souveraine"


def command_for(hook: Hook, memory: Memory, souveraine: str) -> str:
    prefix = f"{souveraine} --memory {shlex.quote(str(memory.root))}"
    subs = [*hook.commands[:-1], " ".join(filter(None, (hook.commands[-1], hook.options)))]
    return "; ".join(f"{prefix} {sub}" for sub in subs)


def is_ours(command: str, hook: Hook) -> bool:
    """Whether ``command`` is this hook's, whatever launcher, memory and further options it names."""
    parts = [part.strip() for part in str(command).split(";")]
    if len(parts) != len(hook.commands):
        return False
    for part, sub in zip(parts, hook.commands):
        match = _MEMORY_OPTION.match(part)
        if not match or "souveraine" not in match["launcher"] or match["sub"].split()[:len(sub.split())] != sub.split():
            return False
    return True


def claude_code(memory: Memory, project: Path, *, local: bool = False, souveraine: str | None = None,
                max_chars: int = CLAUDE_CODE_WAKE_CHARS) -> dict:
    """Merge the four hooks into the project's Claude Code settings; see the module's docstring."""
    if not 1 <= max_chars <= CLAUDE_CODE_CAP:
        raise UsageError(f"--max-chars must be between 1 and {CLAUDE_CODE_CAP:,} (Claude Code's cap), not {max_chars}")
    return wire(memory, claude_code_agent(max_chars, local), project, souveraine=souveraine)


def wire(memory: Memory, agent: Agent, project: Path, *, souveraine: str | None = None) -> dict:
    """Merge ``agent``'s hooks into its settings file under ``project``, keeping the rest."""
    path = Path(project) / agent.settings
    before = _load(path)
    souveraine = souveraine or launcher()
    wanted = {hook.event: command_for(hook, memory, souveraine) for hook in agent.hooks}
    after = merge(json.loads(json.dumps(before)), agent, memory, souveraine, str(path))
    changed = after != before
    if changed:
        atomic_write(path, json.dumps(after, indent=2, ensure_ascii=False) + "\n")
    return {"agent": agent.name, "settings": str(path), "changed": changed, "hooks": wanted}


def mcp_server(memory: Memory, project: Path, *, souveraine: str | None = None) -> dict:
    """Declare the MCP server in the project's .mcp.json (Claude Code's project servers), keeping the others."""
    path = Path(project) / ".mcp.json"
    before = _load(path)
    servers = before.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: 'mcpServers' must be an object; fix it, then run integrate again")
    command, *args = shlex.split(souveraine or launcher())
    entry = {"command": command, "args": [*args, "--memory", str(memory.root), "mcp"]}
    after = {**before, "mcpServers": {**servers, "souveraine": entry}}
    changed = after != before
    if changed:
        atomic_write(path, json.dumps(after, indent=2, ensure_ascii=False) + "\n")
    return {"settings": str(path), "changed": changed, "server": entry}


def merge(settings: dict, agent: Agent, memory: Memory, souveraine: str, where: str = "settings") -> dict:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{where}: 'hooks' must be an object; fix it, then run integrate again")
    for hook in agent.hooks:
        groups = hooks.setdefault(hook.event, [])
        if not isinstance(groups, list):
            raise UsageError(f"{where}: 'hooks.{hook.event}' must be a list; fix it, then run integrate again")
        entry = agent.entry(hook, command_for(hook, memory, souveraine))
        if not _replace(groups, hook, entry):
            group = {"matcher": hook.matcher} if hook.matcher else {}
            groups.append({**group, "hooks": [entry]})
    if agent.name == "gemini":
        _enable_gemini_hooks(settings, where)
    return settings


def _enable_gemini_hooks(settings: dict, where: str) -> None:
    """Stable Gemini CLI releases run hooks only with hooksConfig.enabled; a choice already made is kept."""
    config = settings.setdefault("hooksConfig", {})
    if not isinstance(config, dict):
        raise UsageError(f"{where}: 'hooksConfig' must be an object; fix it, then run integrate again")
    config.setdefault("enabled", True)


def _replace(groups: list, hook: Hook, entry: dict) -> bool:
    """Put ``entry`` where our hook already is (dropping any copies); False when it is nowhere."""
    placed, emptied = False, []
    for group in groups:
        entries = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(entries, list):
            continue
        kept = []
        for existing in entries:
            if isinstance(existing, dict) and is_ours(existing.get("command", ""), hook):
                if not placed:
                    kept.append({**existing, **entry})
                    placed = True
            else:
                kept.append(existing)
        group["hooks"] = kept
        if entries and not kept:
            emptied.append(group)
    groups[:] = [g for g in groups if not any(g is e for e in emptied)]
    return placed


def _load(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix it, then run integrate again") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} must hold a JSON object; fix it, then run integrate again")
    return data
