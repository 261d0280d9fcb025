"""What persist reads: an exchange given as plain values, as JSON, or by Claude Code.

Claude Code's Stop hook sends ``{"session_id", "transcript_path", "cwd",
"hook_event_name": "Stop", "stop_hook_active", "last_assistant_message"}`` on stdin. The
transcript is JSON Lines, one entry a line (``type`` user | assistant | system | summary
| …; ``message.content`` a string or a list of ``text`` / ``tool_use`` / ``tool_result`` /
``thinking`` blocks; ``isSidechain`` true for a subagent's lines). The last exchange is the
last user prompt (not a tool result, not a meta or command line) and what the assistant
did after it. ``last_assistant_message`` is preferred for the answer's words: the
transcript is written asynchronously and may lag behind the hook.

An exchange read from a hook carries the source's own id for it (the prompt line's ``uuid``
in a Claude Code transcript), so a hook fired twice is persisted once (``agents.receipts``).
Tool calls become one line each, the tool and its target (``Read `src/app.py```), never
their output.
"""

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.store import clock

_TAIL = 256 * 1024
_COMMAND_LINES = ("<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>")


@dataclass(frozen=True)
class Exchange:
    """One user message and the answer to it, as persist journals them."""

    assistant: str
    user: str | None = None
    session: str | None = None
    at: datetime | None = None          # when the answer was given (default: now)
    user_at: datetime | None = None     # when the user spoke (default: ``at``)
    tool_calls: tuple[str, ...] = field(default_factory=tuple)   # what the answer did, one line each
    id: str | None = None               # the source's id for this exchange, e.g. "claude-code:<prompt uuid>"

    def check(self) -> "Exchange":
        if not isinstance(self.assistant, str) or not self.assistant.strip():
            raise UsageError("the assistant's text is empty; give what the assistant said (--assistant TEXT)")
        if self.user is not None and (not isinstance(self.user, str) or not self.user.strip()):
            raise UsageError("the user's text is empty; give what the user said (--user TEXT) or leave it out")
        if self.session is not None and ("`" in self.session or "\n" in self.session or not self.session.strip()):
            raise UsageError(f"'{self.session}' is not a session id; use letters, digits and dashes")
        from souveraine.store import given

        for what, value in (("the assistant's text", self.assistant), ("the user's text", self.user),
                            ("the session id", self.session), *(("a tool call", c) for c in self.tool_calls)):
            if value is not None:
                given.text(value, what)
        return self


def moment(value, what: str) -> datetime | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise UsageError(f"'{what}' must be an ISO 8601 time like 2026-11-30T14:32:05, not {value!r}")
    try:
        return clock.parse_moment(value)
    except ValueError:
        raise UsageError(f"'{what}' is not an ISO 8601 time ({value!r}); write it like 2026-11-30T14:32:05") from None


def from_json(text: str) -> Exchange:
    """``{"user", "assistant", "session", "at", "tool_calls"}`` → an Exchange."""
    data = _object(text, "stdin")
    unknown = set(data) - {"user", "assistant", "session", "at", "user_at", "tool_calls"}
    if unknown:
        raise UsageError(f"unknown field(s) {', '.join(sorted(unknown))} in the JSON; "
                         "use user, assistant, session, at, user_at, tool_calls")
    for key in ("user", "assistant", "session"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise UsageError(f"'{key}' must be a string in the JSON, not {type(data[key]).__name__}")
    calls = data.get("tool_calls") or []
    if not isinstance(calls, list):
        raise UsageError("'tool_calls' must be a list in the JSON")
    return Exchange(
        assistant=data.get("assistant") or "", user=data.get("user"), session=data.get("session"),
        at=moment(data.get("at"), "at"), user_at=moment(data.get("user_at"), "user_at"),
        tool_calls=tuple(tool_text(call) for call in calls),
    ).check()


# The argument that says what a call acted on, in order of preference (Claude Code's, Codex's,
# Gemini's and MCP tools' names for them); a pattern is followed by the folder it searched.
_TARGETS = ("file_path", "notebook_path", "absolute_path", "command", "url", "pattern", "query", "path",
            "description", "subagent_type", "prompt", "name", "title", "id", "text")
_TARGET_CHARS = 160


def tool_text(call, cwd: str | None = None) -> str:
    """A tool call as one line: the tool and its target (``Read `config/app.toml```), never its output.

    ``call`` is a string (kept, on one line), or an object: Anthropic's ``{"name", "input"}``,
    OpenAI's ``{"function": {"name", "arguments"}}`` (arguments as JSON text or an object).
    Paths under ``cwd`` are shown relative to it.
    """
    if isinstance(call, str):
        return _one_line(call, 200)
    if not isinstance(call, dict):
        return _one_line(json.dumps(call, ensure_ascii=False), 200)
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = str(call.get("name") or function.get("name") or "tool")
    args = call.get("input", call.get("arguments", function.get("arguments")))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return f"{name} {_code(_one_line(args, _TARGET_CHARS))}"
    target = _target(args, cwd) if isinstance(args, dict) else ""
    return f"{name} {_code(target)}" if target else name


def _target(args: dict, cwd: str | None) -> str:
    key = next((k for k in _TARGETS if isinstance(args.get(k), str) and args[k].strip()), None)
    if key is None:
        counted = next(((k, v) for k, v in args.items() if isinstance(v, list)), None)
        return f"{len(counted[1])} {counted[0]}" if counted else ""
    text = _relative(args[key], cwd) if key.endswith("path") else args[key]
    if key == "pattern" and isinstance(args.get("path"), str) and args["path"].strip():
        text = f"{text} in {_relative(args['path'], cwd)}"
    return _one_line(text, _TARGET_CHARS)


def _relative(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1:]
    return path


def _one_line(text: str, limit: int) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()] or [""]
    line = lines[0] + (" …" if len(lines) > 1 else "")
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


def _code(text: str) -> str:
    """``text`` as inline code, its fence longer than any run of backticks inside."""
    run, fence = 0, 1
    for char in text:
        run = run + 1 if char == "`" else 0
        fence = max(fence, run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{'`' * fence}{pad}{text}{pad}{'`' * fence}"


def from_claude_code(text: str) -> Exchange:
    """A Claude Code Stop payload (and the transcript it names) → the last exchange."""
    payload = _object(text, "the Claude Code payload")
    event = payload.get("hook_event_name")
    if event not in (None, "Stop"):
        raise UsageError(f"persist --claude-code reads a Stop hook's payload, not {event}; wire it to Stop")
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        raise UsageError("the Claude Code payload has no transcript_path; is this a hook's stdin?")
    path = Path(os.path.expanduser(transcript))
    if not path.is_file():
        raise UsageError(f"the transcript {path} does not exist; nothing was persisted")
    prompt, answer = last_exchange(path)
    final = payload.get("last_assistant_message")
    words = final if isinstance(final, str) and final.strip() else "\n\n".join(_texts(answer))
    session = payload.get("session_id") or (prompt or {}).get("sessionId")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    return Exchange(
        assistant=words,
        user="\n\n".join(_texts([prompt])) if prompt else None,
        session=session if isinstance(session, str) else None,
        at=None if final else moment((answer[-1] if answer else {}).get("timestamp"), "timestamp"),
        user_at=moment(prompt.get("timestamp"), "timestamp") if prompt else None,
        tool_calls=tuple(_tool_calls(answer, cwd)),
        id=_exchange_id(prompt, answer, session),
    ).check()


def _exchange_id(prompt: dict | None, answer: list[dict], session) -> str | None:
    """The prompt line's uuid: the same whichever payload variant, however far the transcript lags.
    With no prompt in the transcript (a compacted session), the first answer line's."""
    first = prompt or (answer[0] if answer else None)
    uuid = (first or {}).get("uuid")
    return f"claude-code:{session or ''}:{uuid}" if isinstance(uuid, str) and uuid else None


def last_exchange(path: Path) -> tuple[dict | None, list[dict]]:
    """The last user prompt of the main conversation and the assistant entries after it."""
    size = path.stat().st_size
    window = _TAIL
    while True:
        entries = _entries(path, max(0, size - window))
        for n in range(len(entries) - 1, -1, -1):
            if _is_prompt(entries[n]):
                return entries[n], [e for e in entries[n + 1:] if e.get("type") == "assistant"]
        if window >= size:
            return None, [e for e in entries if e.get("type") == "assistant"]
        window *= 4


def _entries(path: Path, start: int) -> list[dict]:
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read()
    lines = data.split(b"\n")
    if start:
        lines = lines[1:]   # the first line is cut in the middle
    found = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue        # a line still being written, or not JSON at all
        if isinstance(entry, dict) and not entry.get("isSidechain") and isinstance(entry.get("message"), dict):
            found.append(entry)
    return found


def _is_prompt(entry: dict) -> bool:
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return False
    texts = _texts([entry])
    return bool(texts) and not any(t.lstrip().startswith(_COMMAND_LINES) for t in texts)


def _texts(entries: list[dict]) -> list[str]:
    found = []
    for entry in entries:
        content = entry.get("message", {}).get("content")
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}]
        else:
            blocks = content if isinstance(content, list) else []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text" and str(block.get("text", "")).strip():
                found.append(str(block["text"]).strip())
    return found


def _tool_calls(entries: list[dict], cwd: str | None = None) -> list[str]:
    calls = []
    for entry in entries:
        content = entry.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                calls.append(tool_text(block, cwd))
    return calls


def _object(text: str, what: str) -> dict:
    if not text or not text.strip():
        raise UsageError(f"{what} is empty; give a JSON object")
    from souveraine.store import given

    try:
        data = given.json_value(text, what)
    except ValueError as exc:
        raise UsageError(f"{what} is not valid JSON ({exc}); give one JSON object") from None
    if not isinstance(data, dict):
        raise UsageError(f"{what} must be a JSON object, not {type(data).__name__}")
    return data
