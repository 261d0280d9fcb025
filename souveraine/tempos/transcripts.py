"""What persist reads: an exchange given as plain values, as JSON, or by Claude Code.

Claude Code's Stop hook sends ``{"session_id", "transcript_path", "cwd",
"hook_event_name": "Stop", "stop_hook_active", "last_assistant_message"}`` on stdin. The
transcript is JSON Lines, one entry a line (``type`` user | assistant | system | summary
| …; ``message.content`` a string or a list of ``text`` / ``tool_use`` / ``tool_result`` /
``thinking`` blocks; ``isSidechain`` true for a subagent's lines). The last exchange is the
last user prompt (not a tool result, not a meta or command line) and what the assistant
did after it. ``last_assistant_message`` is preferred for the answer's words: the
transcript is written asynchronously and may lag behind the hook.
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
    tool_calls: tuple[str, ...] = field(default_factory=tuple)   # what the answer did, as text

    def check(self) -> "Exchange":
        if not isinstance(self.assistant, str) or not self.assistant.strip():
            raise UsageError("the assistant's text is empty; give what the assistant said (--assistant TEXT)")
        if self.user is not None and (not isinstance(self.user, str) or not self.user.strip()):
            raise UsageError("the user's text is empty; give what the user said (--user TEXT) or leave it out")
        if self.session is not None and ("`" in self.session or "\n" in self.session or not self.session.strip()):
            raise UsageError(f"'{self.session}' is not a session id; use letters, digits and dashes")
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


def tool_text(call) -> str:
    """A tool call as one searchable line: its name and its input."""
    if isinstance(call, str):
        return call
    if isinstance(call, dict):
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = call.get("name") or function.get("name") or ""
        args = call.get("input", call.get("arguments", function.get("arguments", "")))
        return f"{name} {args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)}".strip()
    return json.dumps(call, ensure_ascii=False)


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
    return Exchange(
        assistant=words,
        user="\n\n".join(_texts([prompt])) if prompt else None,
        session=session if isinstance(session, str) else None,
        at=None if final else moment((answer[-1] if answer else {}).get("timestamp"), "timestamp"),
        user_at=moment(prompt.get("timestamp"), "timestamp") if prompt else None,
        tool_calls=tuple(_tool_calls(answer)),
    ).check()


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


def _tool_calls(entries: list[dict]) -> list[str]:
    calls = []
    for entry in entries:
        content = entry.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                calls.append(tool_text(block))
    return calls


def _object(text: str, what: str) -> dict:
    if not text or not text.strip():
        raise UsageError(f"{what} is empty; give a JSON object")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{what} is not valid JSON ({exc}); give one JSON object") from None
    if not isinstance(data, dict):
        raise UsageError(f"{what} must be a JSON object, not {type(data).__name__}")
    return data
