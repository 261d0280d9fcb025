"""Triage by the local model: asked only when souveraine.inference is there and an endpoint is set.

It uses the archivist's model (the smaller, faster one) with no retries: triage is
interactive. Any failure — no client, the server down or slow, a bad config, an answer
naming no category — returns None, and the heuristic answers instead.
"""

import re
from dataclasses import replace

from souveraine.errors import SouveraineError

CATEGORIES = ("WORK", "DOC-QUERY", "CODE-QUERY", "STATUS", "CLARIFY")
PROMPT = """Sort the user's message into exactly one category:
WORK — a request to do or change something concrete.
DOC-QUERY — a question answered by documentation, design or decisions.
CODE-QUERY — a question about the code itself: where, what a function does, why it fails.
STATUS — a question about progress: what is done, running, left or blocked.
CLARIFY — too vague to act on or answer without asking.
Answer with the category, a dash, and a short reason, on one line."""
_LABEL = r"\b(WORK|DOC-QUERY|CODE-QUERY|STATUS|CLARIFY)\b\W*(.*)"
# A label in capitals first ('about work in progress: STATUS' is STATUS), then in any case.
_ANSWERS = (re.compile(_LABEL), re.compile(_LABEL, re.IGNORECASE))


def ask(memory, text: str) -> tuple[str, str] | None:
    """(category, reason) from the local model, or None when it cannot say."""
    if not memory.config["inference"]["endpoint"]:
        return None
    try:
        from souveraine.inference import client
    except ImportError:
        return None
    try:
        endpoint = client.endpoint_for(memory.config, "archivist")
        if endpoint is None:
            return None
        reply = client.Client(replace(endpoint, retries=0)).ask(PROMPT, text, max_tokens=60, temperature=0)
    except SouveraineError:
        return None
    return parse(reply)


def parse(reply: str) -> tuple[str, str] | None:
    match = next((m for m in (p.search(reply or "") for p in _ANSWERS) if m), None)
    if not match:
        return None
    reason = match[2].strip().splitlines()[0].strip() if match[2].strip() else ""
    return match[1].upper(), f"the local model: {reason}" if reason else "the local model said so"
