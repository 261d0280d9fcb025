"""A local model's word on the subconscious's hard cases: never required, never waited on long.

With ``[inference]`` configured, persist may ask the model two things the rules are least
sure of — which open commitment an answer fulfils, when no commitment clearly wins; and
whether a question the rules flagged was really left unanswered. The prompt asks for one
token ("2", "none", "yes", "no"); any other reply, a failure, or silence past ``DEADLINE``
seconds (no retries) leaves the rules' verdict standing. The turn is journaled before
the model is asked, so its word can only refine what is already written down.
"""

import re

DEADLINE = 3.0
_CLOSURE = ("You check an assistant's promises. Given the open commitments (numbered) and the assistant's new "
            "answer, reply with the number of the one commitment the answer fulfils, or the word none. "
            "Reply with the number or none, nothing else.")
_ANSWERED = ("You check whether an answer answers a question. An answer may share no words with the question "
             "(\"What's the weather like?\" — \"Mild: 16 °C\"). Reply yes if the answer answers the question, "
             "no if it does not. Reply yes or no, nothing else.")


def client(memory):
    """A client for the configured model with the judge's deadline, or None when no model is set."""
    from dataclasses import replace

    from souveraine.errors import ConfigError
    from souveraine.inference.client import Client, endpoint_for

    try:
        endpoint = endpoint_for(memory.config, "archivist")
    except ConfigError:
        return None
    if endpoint is None:
        return None
    return Client(replace(endpoint, timeout=min(DEADLINE, endpoint.timeout), retries=0))


def closure(model, open_texts: list[str], answer: str):
    """The index the model names, None for "none", or ... when it gave no usable word."""
    listed = "\n".join(f"{n}. {text}" for n, text in enumerate(open_texts, 1))
    reply = _ask(model, _CLOSURE, f"Open commitments:\n{listed}\n\nThe answer:\n{answer[:2000]}")
    if reply is None:
        return ...
    if reply == "none":
        return None
    if reply.isdigit() and 1 <= int(reply) <= len(open_texts):
        return int(reply) - 1
    return ...


def answered(model, question: str, answer: str) -> bool | None:
    """True or False when the model says; None when it gave no usable word."""
    reply = _ask(model, _ANSWERED, f"Question: {question}\n\nAnswer:\n{answer[:2000]}")
    return {"yes": True, "no": False}.get(reply or "")


def _ask(model, system: str, user: str) -> str | None:
    from souveraine.inference.client import InferenceError

    try:
        text = model.ask(system, user, max_tokens=4, temperature=0.0)
    except InferenceError:
        return None
    word = re.sub(r"[\s.!\"'`*]+", " ", text).strip().lower()
    return word if re.fullmatch(r"\d{1,2}|none|yes|no", word) else None
