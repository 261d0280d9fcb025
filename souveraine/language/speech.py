"""How a sentence is said: asked, supposed, denied, quoted, reported, coded, requested.

The judgements of the subconscious read *what* a sentence says only after these say
*how*: "I'll save it" binds; "Shall I save it?", "If you like, I'll save it", "I won't
save it", `He said "I'll save it"` and a line of code that prints it do not. All take one
sentence (``sentences.split`` gives them) in its written form.
"""

import re
from dataclasses import dataclass
from datetime import datetime

from souveraine.language.words import normal
from souveraine.language.patterns import lazy

_QUESTION_START = lazy(
    r"^(?:what|when|where|who|whom|whose|why|how|which|is|are|was|were|do|does|did|can|could|should|would|will|"
    r"have|has|had|shall|may|might|any (?:idea|chance|news|tips?)|quick one|remind me,? what)\b")
_QUOTES = lazy(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`|(?<!\w)'[^'\n]{3,}?'(?!\w)|«[^»\n]*»|„[^“\n]*“")
_CONDITION = lazy(
    r"\b(?:unless|should you|in case|provided(?: that)?|whenever you|once you|as soon as you|when you(?:'re| are) ready|"
    r"say the word|suppose|imagine|were i|had i|if only)\b|(?<!\bcheck )(?<!\bsee )(?<!\bfind out )(?<!\bknow )"
    r"(?<!\bask )(?<!\bverify )(?<!\btest )(?<!\bwhether or )\bif\b")
_NEGATION = lazy(r"\b(?:not|never|no|nothing|none|nobody|neither|nor|without)\b|n't\b|\bwon't\b")
_REPORTED = lazy(
    r"\b(?:said|says|say|told \w+|tells \w+|promised|promises|claims?|claimed|mentioned|wrote|writes|agreed|asked|"
    r"replied|replies|reads|read|ends with|note says|message said|sign said)\b[^;]*$")
_CODE_LINE = lazy(r"^\s*(?:[$>#]|[\w.]+\(|def |class |import |from \w+ import|[{}\[\]]|\w+ = )")
_REQUEST = lazy(
    r"\b(?:(?:can|could|would|will) you |please |pls |don't forget to |do )?remind me (?:to |about |that |of )?"
    r"(?P<what>.+?)\s*[.!?]*$", re.IGNORECASE)


def is_question(sentence: str) -> bool:
    """Asked, not said: ends in "?", or opens like a question and does not end like a statement."""
    line = normal(sentence).rstrip()
    if line.endswith("?"):
        return True
    return bool(_QUESTION_START.match(line)) and len(line.split()) >= 3 and not line.endswith((".", "!", ":"))


def unquote(sentence: str) -> str:
    """The sentence with quoted speech and inline code blanked out (same length)."""
    return _QUOTES.sub(lambda m: " " * len(m[0]), sentence)


def quoted(sentence: str) -> list[str]:
    """The quoted or coded spans, without their marks."""
    return [m[0][1:-1] for m in _QUOTES.finditer(sentence)]


def is_hypothetical(sentence: str) -> bool:
    """A condition the listener must meet first, a supposition, an imagined case."""
    return bool(_CONDITION.search(normal(unquote(sentence))))


def is_negated(clause: str) -> bool:
    """Does the clause deny (not, never, won't, no need…)?"""
    return bool(_NEGATION.search(normal(clause)))


def is_reported(before: str) -> bool:
    """Is what follows ``before`` someone's reported words ("he said he'll…", "the note says")?"""
    return bool(_REPORTED.search(normal(before)))


def is_code(line: str) -> bool:
    """A line that reads as code or a shell prompt rather than prose."""
    return bool(_CODE_LINE.match(line))


@dataclass(frozen=True)
class Request:
    """The user's own "remind me to…": what to be reminded of, and when, if said."""

    what: str
    when: object = None     # a language.dates.Mention, or None

    def to_dict(self) -> dict:
        return {"what": self.what, "when": self.when.to_dict() if self.when else None}


def request(text: str, now: datetime) -> Request | None:
    """The reminder a user asks for in ``text`` ("Remind me to call Mum on Sunday"), or None.

    Only the user's own request counts: a question about reminders, a negation ("don't
    remind me") or a reported one ("she asked me to remind her") is no request.
    """
    from souveraine.language import dates
    from souveraine.language.sentences import split

    for sentence in split(text):
        line = normal(sentence.text)
        if re.search(r"\b(?:don't|do not|no need to|never) remind me\b", line) or "remind me what" in line:
            continue
        match = _REQUEST.search(sentence.text)
        if not match or is_reported(sentence.text[:match.start()]):
            continue
        what = match["what"]
        found = dates.first_future(what, now)
        return Request(_without(what, found).strip(" ,.") or what, found)
    return None


def _without(text: str, mention) -> str:
    if mention is None:
        return text
    return re.sub(r"\s{2,}", " ", text[:mention.start] + text[mention.end:])
