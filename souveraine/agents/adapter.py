"""One answer to every agent's lifecycle hook: the payload on stdin in, JSON on stdout out.

Claude Code, Codex CLI, Gemini CLI and Letta Code all run a command at their lifecycle
events with a JSON payload naming the event (``hook_event_name``). ``respond`` runs the
tempo that event calls for and answers in the shape they share:
``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}`` when there is
context to add, ``{}`` otherwise — JSON only, which Gemini CLI requires and the others accept.

- SessionStart → wake; UserPromptSubmit / BeforeAgent → surface (both as context);
- Stop / AfterAgent → persist the exchange: Gemini's ``prompt`` and ``prompt_response``,
  else the transcript a Claude Code or Letta Code payload names, else (Codex) its
  ``last_assistant_message`` alone;
- PreCompact / PreCompress → reflect, then archive, both forced: the context is full.
"""

import json
import os
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.store.memory import Memory

CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "BeforeAgent")
PERSIST_EVENTS = ("Stop", "AfterAgent")
COMPACT_EVENTS = ("PreCompact", "PreCompress")


def respond(memory: Memory, payload: dict, max_chars: int | None = None) -> dict:
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if event == "SessionStart":
        return context(event, _wake(memory, max_chars))
    if event in CONTEXT_EVENTS:
        from souveraine.tempos.surface import surface

        return context(event, "\n".join(surface(memory).lines))
    if event in PERSIST_EVENTS:
        from souveraine.tempos.persist import persist

        persist(memory, exchange_of(payload))
        return {}
    if event in COMPACT_EVENTS:
        from souveraine.tempos import archive, reflect

        reflect.run(memory, force=True)
        archive.run(memory, force=True)
        return {}
    known = ", ".join(CONTEXT_EVENTS + PERSIST_EVENTS + COMPACT_EVENTS)
    raise UsageError(f"no tempo answers the hook event {event!r}; wire this command to one of: {known}")


def context(event: str, text: str) -> dict:
    if not text.strip():
        return {}
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def exchange_of(payload: dict):
    from souveraine.tempos import transcripts

    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    if isinstance(payload.get("prompt_response"), str):
        prompt = payload.get("prompt")
        return transcripts.Exchange(assistant=payload["prompt_response"], session=session,
                                    user=prompt if isinstance(prompt, str) and prompt.strip() else None).check()
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and transcript and Path(os.path.expanduser(transcript)).is_file():
        return transcripts.from_claude_code(json.dumps({**payload, "hook_event_name": "Stop"}))
    final = payload.get("last_assistant_message")
    if isinstance(final, str) and final.strip():
        return transcripts.Exchange(assistant=final, session=session).check()
    raise UsageError("the hook's payload holds no answer to persist (no prompt_response, transcript or "
                     "last_assistant_message)")


def _wake(memory: Memory, max_chars: int | None) -> str:
    from souveraine.wake import render, wake

    return render.markdown(wake(memory, max_chars=max_chars))
