"""Triage by the local model: asked only when souveraine.inference is there and an endpoint is set.

Any failure — no client, the server down, an answer naming no category — returns None,
and the heuristic answers instead: triage never fails for want of a model.
"""

import re

from souveraine.errors import SouveraineError

CATEGORIES = ("WORK", "DOC-QUERY", "CODE-QUERY", "STATUS", "CLARIFY")
PROMPT = """Sort the user's message into exactly one category:
WORK — a request to do or change something concrete.
DOC-QUERY — a question answered by documentation, design or decisions.
CODE-QUERY — a question about the code itself: where, what a function does, why it fails.
STATUS — a question about progress: what is done, running, left or blocked.
CLARIFY — too vague to act on or answer without asking.
Answer with the category, a dash, and a short reason, on one line."""
_ANSWER = re.compile(r"\b(WORK|DOC-QUERY|CODE-QUERY|STATUS|CLARIFY)\b\W*(.*)", re.IGNORECASE)


def ask(memory, text: str) -> tuple[str, str] | None:
    """(category, reason) from the local model, or None when it cannot say."""
    if not memory.config["inference"]["endpoint"]:
        return None
    try:
        from souveraine.inference import client
    except ImportError:
        return None
    messages = [{"role": "system", "content": PROMPT}, {"role": "user", "content": text}]
    try:
        reply = client.chat(memory.config, messages, max_tokens=60)
    except (SouveraineError, OSError, ValueError, TypeError, AttributeError):
        return None
    return parse(reply if isinstance(reply, str) else getattr(reply, "text", ""))


def parse(reply: str) -> tuple[str, str] | None:
    match = _ANSWER.search(reply or "")
    if not match:
        return None
    reason = match[2].strip().splitlines()[0].strip() if match[2].strip() else ""
    return match[1].upper(), f"the local model: {reason}" if reason else "the local model said so"
