"""One answer to every agent's lifecycle hook: the payload on stdin in, JSON on stdout out.

Claude Code, Codex CLI, Gemini CLI and Letta Code all run a command at their lifecycle
events with a JSON payload naming the event (``hook_event_name``). ``respond`` runs the
tempo that event calls for and answers in the shape they share:
``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}`` when there is
context to add, ``{}`` otherwise — JSON only, which Gemini CLI requires and the others accept.

- SessionStart → wake (as context), then the warm recall server started in the background
  where recall can use vectors (``recall.warm.ahead``: never waited for);
- UserPromptSubmit / BeforeAgent → surface (as context);
- Stop / AfterAgent → persist the exchange, once (``agents.receipts``): Gemini's ``prompt``
  and ``prompt_response``; Codex's ``last_assistant_message`` with the prompt its
  UserPromptSubmit gave for the same ``turn_id``; else the transcript a Claude Code or
  Letta Code payload names;
- PreCompact / PreCompress → reflect, then archive, both forced: the context is full.
"""

import hashlib
import json
import os
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.store import lock
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "BeforeAgent")
PERSIST_EVENTS = ("Stop", "AfterAgent")
COMPACT_EVENTS = ("PreCompact", "PreCompress")
PROMPTS = "prompts.json"        # Codex prompts waiting for their turn's Stop, by turn id
KEPT_PROMPTS = 200


def respond(memory: Memory, payload: dict, max_chars: int | None = None) -> dict:
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if event == "SessionStart":
        from souveraine.recall import warm

        answer = context(event, _wake(memory, max_chars))
        warm.ahead(memory)
        return answer
    if event in CONTEXT_EVENTS:
        from souveraine.tempos.surface import surface

        if _turn(payload) and isinstance(payload.get("prompt"), str):
            keep_prompt(memory, _turn(payload), payload["prompt"])
        return context(event, "\n".join(surface(memory).lines))
    if event in PERSIST_EVENTS:
        from souveraine.agents.receipts import persist_once

        persist_once(memory, exchange_of(payload, memory))
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


def exchange_of(payload: dict, memory: Memory | None = None):
    from souveraine.tempos import transcripts

    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    final = payload.get("last_assistant_message")
    if isinstance(payload.get("prompt_response"), str):
        prompt = payload.get("prompt") if isinstance(payload.get("prompt"), str) and payload["prompt"].strip() else None
        digest = hashlib.sha1(f"{prompt or ''}\0{payload['prompt_response']}".encode()).hexdigest()[:16]
        return transcripts.Exchange(assistant=payload["prompt_response"], session=session, user=prompt,
                                    id=f"gemini:{session or ''}:{digest}").check()
    if _turn(payload):
        if not isinstance(final, str) or not final.strip():
            raise UsageError(f"the Stop payload of turn {_turn(payload)} holds no last_assistant_message to persist")
        user = take_prompt(memory, _turn(payload)) if memory is not None else None
        return transcripts.Exchange(assistant=final, user=user, session=session,
                                    id=f"codex:{session or ''}:{_turn(payload)}").check()
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and transcript and Path(os.path.expanduser(transcript)).is_file():
        return transcripts.from_claude_code(json.dumps({**payload, "hook_event_name": "Stop"}))
    if isinstance(final, str) and final.strip():
        return transcripts.Exchange(assistant=final, session=session).check()
    raise UsageError("the hook's payload holds no answer to persist (no prompt_response, transcript or "
                     "last_assistant_message)")


def _turn(payload: dict) -> str | None:
    """Codex's turn id, which Claude Code's and Gemini's payloads do not have."""
    turn = payload.get("turn_id")
    return turn if isinstance(turn, str) and turn else None


def keep_prompt(memory: Memory, turn: str, prompt: str) -> None:
    """Keep a Codex prompt until its turn's Stop, which carries only the answer."""
    with lock.locked(memory.cache / "prompts.lock", what="the waiting prompts"):
        waiting = _prompts(memory)
        waiting.pop(turn, None)
        waiting[turn] = prompt
        atomic_write(memory.cache / PROMPTS, json.dumps(dict(list(waiting.items())[-KEPT_PROMPTS:])) + "\n")


def take_prompt(memory: Memory, turn: str) -> str | None:
    with lock.locked(memory.cache / "prompts.lock", what="the waiting prompts"):
        waiting = _prompts(memory)
        prompt = waiting.pop(turn, None)
        if prompt is not None:
            atomic_write(memory.cache / PROMPTS, json.dumps(waiting) + "\n")
    return prompt if isinstance(prompt, str) and prompt.strip() else None


def _prompts(memory: Memory) -> dict:
    try:
        data = json.loads((memory.cache / PROMPTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _wake(memory: Memory, max_chars: int | None) -> str:
    from souveraine.wake import render, wake

    return render.markdown(wake(memory, max_chars=max_chars))
