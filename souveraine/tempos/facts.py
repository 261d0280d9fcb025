"""The fact a promise to save keeps: one self-contained sentence, with its subject and absolute dates.

"I'll remember the new date." answering "The dentist moved to Thursday." becomes
"The dentist moved to Thursday 2026-12-10." — not "The new date.", not the whole message
with its "Good point." and "thanks!". The words come from what the promise says it keeps
("remember that your sister is Lea", "Saved: Zé da Mouraria, 218 865 436") when that is
a fact, else from the user's message, sentence by sentence: greetings, thanks,
acknowledgements, questions and requests to the assistant are dropped; "I", "my", "me"
become "the user"; every relative date is said absolutely, against the turn's time.
"""

import re
from datetime import datetime

from souveraine.language.words import normal
from souveraine.language.patterns import lazy

_FILLER = lazy(
    r"^(?:(?:ok(?:ay)?|oh|ah|hm+|well|so|yes|yeah|yep|no|nope|right|sure|cool|great|nice|perfect|thanks|thank you|"
    r"cheers|lol|haha|wow|hey|hi|hello|good (?:point|idea|call|to know)|sounds good|got it|fair enough|makes sense|"
    r"by the way|btw|fyi|also|and|anyway|alright|exactly|indeed|of course|please|pls)[\s,.!:;—-]*)+$")
_LEAD = lazy(
    r"^(?:(?:ok(?:ay)?|oh|so|also|and|yes|yeah|right|btw|by the way|fyi|just so you know|for the record|"
    r"(?:please |pls )?(?:remember|note|keep in mind|don't forget|save|make a note)(?: that| this)?|"
    r"(?:can|could|would) you (?:remember|note|save)(?: that)?|for (?:future|your) reference|heads up)[\s,:—-]+)+",
    re.IGNORECASE)
_ASKS = lazy(r"^(?:can|could|would|will) you\b|^please\b|^(?:remind|tell|show|help|give|send|book|find)\b", re.I)
_PERSON = [
    (lazy(r"\bI'm\b|\bI am\b"), "the user is"), (lazy(r"\bI've\b|\bI have\b"), "the user has"),
    (lazy(r"\bI'd\b"), "the user would"), (lazy(r"\bI'll\b"), "the user will"),
    (lazy(r"\bI was\b"), "the user was"), (lazy(r"\bI\b"), "the user"),
    (lazy(r"\bmy\b", re.I), "the user's"), (lazy(r"\bmine\b", re.I), "the user's"),
    (lazy(r"\bme\b"), "the user"), (lazy(r"\bmyself\b"), "the user"),
]
_YOU = [
    (lazy(r"\byou're\b|\byou are\b", re.I), "the user is"), (lazy(r"\byou've\b", re.I), "the user has"),
    (lazy(r"\byour\b", re.I), "the user's"), (lazy(r"\byou\b", re.I), "the user"),
]
_VERB_AFTER_USER = lazy(r"\bthe user (take|prefer|like|love|hate|want|need|live|work|eat|drink|speak|do|go|use|"
                              r"have|own|play|run|walk|call|keep|get|start|finish|pay)\b")


def statement(promise, user: str | None, now: datetime) -> str:
    """The fact to keep, as one sentence; "" when no words carry one."""
    return keep(promise, user, now)[0]


def keep(promise, user: str | None, now: datetime) -> tuple[str, str]:
    """The fact to keep and whose words it is ("assistant" or "user"); ("", "") when none."""
    from souveraine.language.sentences import split

    kept = [s.text for s in split(user or "") if _fact(s.text)]
    content = promise.content if promise.content and len(promise.content.split()) >= 2 else ""
    if content and (_clause(content) or not (kept and _overlaps(content, kept))):
        return finish(_person(content, _YOU), now), "assistant"
    if kept:
        return finish(" ".join(_person(_LEAD.sub("", s), _PERSON) for s in _best(kept, promise)), now), "user"
    return "", ""


def _fact(sentence: str) -> bool:
    from souveraine.language import speech

    line = normal(sentence).strip()
    if not line or _FILLER.match(line) or speech.is_question(sentence) or _ASKS.match(_LEAD.sub("", sentence)):
        return False
    return len(re.findall(r"\w+", line)) >= 2


def _clause(text: str) -> bool:
    """Does it read as a whole statement (a verb), not a fragment ("boiler serviced in October")?"""
    return bool(re.search(r"\b(?:is|are|was|were|has|have|had|will|can|'s|'re|lives|works|arrives|lands|takes|"
                          r"prefers|likes|loves|hates|goes|starts|ends|needs|uses|leaves|eats|drinks)\b", normal(text)))


def _overlaps(content: str, kept: list[str]) -> bool:
    words = set(re.findall(r"\w{3,}", normal(content)))
    return any(words & set(re.findall(r"\w{3,}", normal(s))) for s in kept)


def _best(kept: list[str], promise) -> list[str]:
    """The sentences worth keeping: all, if few; else the ones sharing most words with the promise."""
    if len(kept) <= 2:
        return kept
    words = set(re.findall(r"\w{4,}", normal(promise.sentence)))
    scored = sorted(kept, key=lambda s: -len(words & set(re.findall(r"\w{4,}", normal(s)))))
    return [s for s in kept if s in scored[:2]]


def _person(text: str, rules) -> str:
    for pattern, words in rules:
        text = pattern.sub(words, text)
    text = _VERB_AFTER_USER.sub(lambda m: f"the user {_third(m[1])}", text)
    return _their(text)


def _their(text: str) -> str:
    """Once the sentence has named the user, a possessive is "their": "the user takes their tea"."""
    first = text.lower().find("the user")
    if first < 0:
        return text
    cut = first + len("the user")
    return text[:cut] + re.sub(r"\bthe user's\b", "their", text[cut:], flags=re.I)


def _third(verb: str) -> str:
    if verb in ("have",):
        return "has"
    if verb in ("do", "go"):
        return verb + "es"
    return verb + "s"


def finish(text: str, now: datetime, *, times: bool = True) -> str:
    """One sentence: dates made absolute (clock times too, unless ``times`` is off), a capital first, a full stop last."""
    text = absolute(text.strip(), now, times=times)
    text = re.sub(r"\s+", " ", text).strip(" ,;—-")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


_PAST = lazy(r"\b(?:was|were|did|had|went|born|ago|got|came|left|met|happened|started|finished|visited|"
                   r"bought|sold|married|died|graduated|last)\b", re.I)
_RESCHEDULED = lazy(r"\b(?:moved|postponed|rescheduled|pushed|changed|brought forward|shifted|delayed) "
                          r"(?:back )?(?:to|until|till)\b", re.I)


def absolute(text: str, now: datetime, *, times: bool = True) -> str:
    """Each relative date phrase followed by the date it means: "on Friday" → "on Friday (2026-12-04)".

    A sentence in the past tense reads its dates backwards ("was born on 2 May": the last one).
    """
    from souveraine.language import dates

    out, cursor = [], 0
    prefer = "past" if _PAST.search(text) and not _RESCHEDULED.search(text) else "future"
    for mention in dates.find(text, now, prefer=prefer):
        if re.search(r"\d{4}", mention.text) or (mention.timed and not times):
            continue
        out.append(text[cursor:mention.end])
        out.append(" " + _when(mention))
        cursor = mention.end
    out.append(text[cursor:])
    return "".join(out)


def _when(mention) -> str:
    if mention.grain in ("week", "weekend", "month", "year"):
        from souveraine.language.dates import describe

        return f"({describe(mention)})"
    if mention.grain == "minute":
        return f"({mention.begins:%Y-%m-%d %H:%M})"
    return f"({mention.begins:%Y-%m-%d})"
