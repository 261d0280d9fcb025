"""Wiring an agent's own hooks to the tempos: Claude Code's .claude/settings.json.

``claude_code(memory, project)`` merges four hooks into the project's settings —
SessionStart → ``wake`` (its stdout becomes context), UserPromptSubmit → ``surface``
(likewise), Stop → ``persist --claude-code`` (reads the hook's payload), PreCompact →
``reflect --force`` then ``archive --force`` — and keeps everything else as it was. A
hook is ours when its command, without the launcher and ``--memory PATH``, is one of
these; ours are updated in place, never duplicated, so running it twice changes nothing.
The file is replaced atomically, and only when something changed.
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


@dataclass(frozen=True)
class Hook:
    event: str
    commands: tuple[str, ...]       # souveraine subcommands, run one after the other
    matcher: str | None = None
    timeout: int = 60


CLAUDE_CODE = (
    Hook("SessionStart", ("wake",), matcher="startup|resume|clear|compact", timeout=30),
    Hook("UserPromptSubmit", ("surface",), timeout=30),
    Hook("Stop", ("persist --claude-code",), timeout=60),
    Hook("PreCompact", ("reflect --force", "archive --force"), timeout=300),
)
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
    return "; ".join(f"{prefix} {sub}" for sub in hook.commands)


def is_ours(command: str, hook: Hook) -> bool:
    """Whether ``command`` is this hook's, whatever launcher and memory it names."""
    parts = [part.strip() for part in str(command).split(";")]
    if len(parts) != len(hook.commands):
        return False
    for part, sub in zip(parts, hook.commands):
        match = _MEMORY_OPTION.match(part)
        if not match or "souveraine" not in match["launcher"] or match["sub"].strip() != sub:
            return False
    return True


def settings_path(project: Path, local: bool = False) -> Path:
    return Path(project) / ".claude" / ("settings.local.json" if local else "settings.json")


def claude_code(memory: Memory, project: Path, *, local: bool = False, souveraine: str | None = None) -> dict:
    """Merge the four hooks into the project's Claude Code settings; see the module's docstring."""
    path = settings_path(project, local)
    before = _load(path)
    souveraine = souveraine or launcher()
    wanted = {hook.event: command_for(hook, memory, souveraine) for hook in CLAUDE_CODE}
    after = merge(json.loads(json.dumps(before)), memory, souveraine, str(path))
    changed = after != before
    if changed:
        atomic_write(path, json.dumps(after, indent=2, ensure_ascii=False) + "\n")
    return {"settings": str(path), "changed": changed, "hooks": wanted}


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


def merge(settings: dict, memory: Memory, souveraine: str, where: str = "settings") -> dict:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{where}: 'hooks' must be an object; fix it, then run integrate again")
    for hook in CLAUDE_CODE:
        groups = hooks.setdefault(hook.event, [])
        if not isinstance(groups, list):
            raise UsageError(f"{where}: 'hooks.{hook.event}' must be a list; fix it, then run integrate again")
        entry = {"type": "command", "command": command_for(hook, memory, souveraine), "timeout": hook.timeout}
        if not _replace(groups, hook, entry):
            group = {"matcher": hook.matcher} if hook.matcher else {}
            groups.append({**group, "hooks": [entry]})
    return settings


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
