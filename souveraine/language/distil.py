"""A sentence distilled into a line a person can read later: who, what, when.

``line(sentence, role=…, at=…, about=…)`` keeps the clause that speaks of ``about`` (and any
other clause holding a figure, a name or a fact), drops the small talk before it
("btw", "as promised") and the hedges inside it ("I think", "kind of", "honestly"), says
who the first person is ("I'll call Tomás" → "the user will call Tomás"), makes a relative
date absolute against the time it was said ("tomorrow at 10" → "on Tuesday 2026-12-01 at
10:00", "today" → "that day", through ``language.dates``), and cuts the result at a word within ``limit`` characters.
It never invents: every word of the line is the sentence's, a pronoun's referent, or a date
the sentence's phrase means. Nothing here is loaded before a line is asked for.
"""

import re
from datetime import datetime

from souveraine.language.patterns import lazy

LIMIT = 160
SPEAKERS = {"user": "the user", "assistant": "the agent"}

_CLAUSES = lazy(r"\s*(?:;|\s[—–]\s|\s-\s|,\s+(?=(?:but|so|and then|because|though|although|while)\b))\s*")
# Small talk before what is said: words that open with a pause after them ("Yes, …", "Great! …"),
# and phrases that open whatever follows ("btw …", "as promised …"). "No nuts for Leo" keeps its "No".
_OPENERS = lazy(r"^(?:(?:(?:oh|ah|ok|okay|right|well|so|yes|yeah|yep|no|nope|sure|great|perfect|thanks|thank you|"
                r"hey|hi|look|listen|good news|news|update|quick update|heads[- ]up|noted)\s?[,:!.—–-]+\s*)|"
                r"(?:(?:btw|by the way|anyway|also|and|plus|fyi|as promised|as agreed|as discussed|just so you know|"
                r"just to say|for the record|to be honest|tbh|honestly|basically|actually|i mean)\b[,:.\s—–-]*))+",
                re.IGNORECASE)
_HEDGES = lazy(r"\b(?:i\s+(?:think|guess|suppose|believe|reckon|feel\s+like)(?:\s+that)?|it\s+seems\s+(?:like\s+|that\s+)?|"
               r"kind\s+of|sort\s+of|pretty\s+much|more\s+or\s+less|basically|literally|honestly|actually|"
               r"you\s+know|to\s+be\s+honest)\b,?\s*", re.IGNORECASE)
_JUST = lazy(r"\b(i|we|you|he|she|they)\s+just\s+", re.IGNORECASE)
_FIRST = lazy(r"(?<![\w'’-])(?:(and|or)\s+)?(I|i)(['’](?:m|ve|ll|d))?(?![\w'’-])(\s+)?(\w+)?(\s+(?![Ii](?!\w))\w+)?")
_OBJECT = lazy(r"(?<![\w'’-])(me|my|mine|myself|^Me|^My)(?![\w'’-])")   # "Never Let Me Go" is a title
_VALUE = lazy(r"\d")
# A relative phrase names its day through the moment it was said; an absolute one ("3 November",
# "2026-12-04") is already a date and is left as written.
_RELATIVE = lazy(r"\b(?:today|tonight|tomorrow|yesterday|next|last|this|coming|ago|in\s+(?:a|an|one|two|three|four|"
                 r"five|six|seven|\d+)\s+(?:days?|weeks?|months?)|mon|tue|wed|thu|fri|sat|sun|weekend|end\s+of)",
                 re.IGNORECASE)
_HABIT = lazy(r"\b(?:every|each|most|some|any)\s+(?:other\s+)?$", re.IGNORECASE)   # "every Friday" names no one day
_LEAD_BEFORE = lazy(r"\b(?:on|by|until|till|before|after|from|since|for|at|in|to)\s*$", re.IGNORECASE)
# After a phrase, what says it is not a date of its own: a figure it cut in half ("Tuesday 9" of
# "Tuesday 9:15"), or an event it is reckoned from ("the weekend before", "the day after").
_NOT_ALONE = lazy(r"^(?:[:.,]?\d|\s+(?:before|after|earlier|later)\b)", re.IGNORECASE)
_OWN_LEAD = lazy(r"(?:before|by|until|till|after|from|since|on|in|at|for)\s+", re.IGNORECASE)
_BE = lazy(r"(?:\b(?:is|are|am|was|were|be|been)|['’](?:s|re|m))\s*$", re.IGNORECASE)

_CONTRACTED = {"'m": "is", "'ve": "has", "'ll": "will", "'d": "would"}
_THIRD = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "go": "goes", "was": "was", "haven't": "hasn't"}
_UNCHANGED = frozenset("""
will would can could should might must shall may had did was were wasn't didn't can't cannot won't wouldn't
couldn't shouldn't mustn't went saw met got made took gave told said found thought knew came left felt kept
paid sent spent lost bought brought caught taught sold held heard meant ran sat stood won wrote began drank ate
fell forgot broke chose drove flew grew hid hit hurt let put quit set shut slept spoke stole swam threw
understood woke wore read cut cost lent built became forgave rang sang swore led dealt
""".split())
_ADVERBS = frozenset("""
always never also really still usually often sometimes already finally only even actually probably definitely
rarely seldom almost nearly mostly totally completely
""".split())


def line(sentence: str, *, role: str = "user", at: datetime | None = None, about: str = "",
         limit: int = LIMIT) -> str:
    """``sentence``, said by ``role`` at ``at``, as one distilled line of at most ``limit`` characters.
    A line that lost a figure, a date or a name the sentence holds is worse than the sentence:
    then the sentence is kept as written."""
    whole = " ".join(sentence.split())
    who = SPEAKERS.get(role, role)
    opened = _OPENERS.sub("", whole).strip() or whole
    text = _distilled(clause(opened, about), who, at)
    if _lost(text, whole, at):                    # a figure or a date went missing: keep every clause
        text = _distilled(opened, who, at)
    text = text.strip(" ,;:—–-") or whole
    text = clip(_sentence(text), limit)
    if not _lost(text, whole, at):
        return text
    written = clip(_sentence(whole), limit)
    return text if len(_lost(text, whole, at)) < len(_lost(written, whole, at)) else written


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?…" else text.rstrip(".") + "."


def _distilled(text: str, who: str, at: datetime | None) -> str:
    text = trim(text)
    if at is not None:
        text = absolute(text, at)
    return speaker(text, who)


def _lost(line: str, sentence: str, at: datetime | None) -> list[str]:
    """The figures, dates (perhaps said as their day) and names of the sentence the line no longer says."""
    from souveraine.inference import facts
    from souveraine.language import dates, names

    lost = []
    for value in facts.read(sentence).values:
        if value in line:
            continue
        meant = dates.resolve(value, at.replace(tzinfo=None)) if at is not None else None
        if meant is None or not any(form in line for form in _said(meant, at)):
            lost.append(value)
    folded = line.casefold()
    return lost + [p.name for p in names.people(sentence) if p.name.casefold() not in folded]


def _said(meant, at: datetime) -> list[str]:
    """How a line may say the date a phrase means: its day, its time, its words, or "that day"."""
    forms = [meant.day.isoformat(), f"{meant.begins:%H:%M}", _when(meant)]
    return forms + ([_that_day(meant)] if meant.begins.date() == at.date() else [])


def clause(sentence: str, about: str = "") -> str:
    """The clause that speaks of ``about`` (the first, without it), and each other clause holding a
    figure, a name or a fact (``inference.facts``: a decision, a preference, a commitment…), in
    their order: a clause is dropped only when it carries none of these. An aside between two
    dashes that carries none goes without a seam ("Łukasz — the guy from the gym — lent me…"), one
    that carries some stays in brackets; a clause that says little but who ("Tomás called") keeps
    the one after it, where the news is; and a clause kept that leans on the one before ("…, but
    only after the 12th") keeps that one too."""
    sentence = _ASIDE.sub(lambda m: f" ({m[1].strip()}) " if _weighty(m[1]) else " ", sentence)
    parts = [p for p in _CLAUSES.split(sentence) if p and p.strip()]
    if len(parts) < 2:
        return sentence
    first = about.split()[0].casefold() if about.split() else ""
    chosen = next((i for i, p in enumerate(parts) if first and first in p.casefold()), 0)
    kept = {i for i, p in enumerate(parts) if i == chosen or _weighty(p)}
    if chosen + 1 < len(parts) and _only_who(parts[chosen], about):
        kept.add(chosen + 1)                  # "Tomás called — the fitters have gone bust": the news follows
    kept |= {i - 1 for i in kept if i and _LEANS.match(parts[i])}
    out = ""
    for i in sorted(kept):
        out += (", " if _LEANS.match(parts[i]) and i - 1 in kept else "; ") * bool(out) + parts[i].strip()
    return out


_ASIDE = lazy(r"\s[—–]\s([^—–;]{1,60}?)\s[—–]\s")
_LEANS = lazy(r"\s*(?:but|so|and then|because|though|although|while)\b", re.IGNORECASE)


def _only_who(part: str, about: str) -> bool:
    """Does the clause say little but who ("Tomás called", "Ines, not Inês, the other one")?"""
    from souveraine.inference import extractive
    from souveraine.language import names

    named = {w.casefold() for p in names.people(part) for w in p.name.split()} | {w.casefold() for w in about.split()}
    said = [w for w in extractive.content_words(part) if w.split("'")[0].split("’")[0] not in named]
    return len(said) <= 1


def _weighty(part: str) -> bool:
    return bool(_VALUE.search(part) or _named(part) or _fact(part))


def _fact(part: str) -> bool:
    from souveraine.inference import facts

    return facts.read(part).kind != "essence"


def _named(part: str) -> bool:
    """Does the clause hold a capitalised word after its first?"""
    return any(word[:1].isupper() and word != "I" for word in part.split()[1:])


def trim(text: str) -> str:
    """Without the small talk that opens it and the hedges inside it."""
    text = _OPENERS.sub("", text.strip()).strip() or text
    trimmed = _HEDGES.sub("", text)
    trimmed = _JUST.sub(lambda m: m[1] + " ", trimmed)
    trimmed = re.sub(r"\s+([,.;!?])", r"\1", re.sub(r"\s{2,}", " ", trimmed)).strip(" ,")
    return trimmed or text


def absolute(text: str, at: datetime) -> str:
    """Relative date phrases made absolute against ``at``: "tomorrow" said on 30 November is "on
    Tuesday 2026-12-01"; "today" is "that day" (the line carries its date)."""
    from souveraine.language import dates

    at = at.replace(tzinfo=None)
    out, last = [], 0
    for mention in dates.find(text, at):
        if (not _RELATIVE.search(mention.text) or _HABIT.search(text[:mention.start])
                or _NOT_ALONE.search(text[mention.end:])):
            continue
        if mention.begins.date() == at.date() and mention.grain in ("day", "part", "minute"):
            said = _that_day(mention)        # the line is dated already: "today" is "that day"
        else:
            own = _OWN_LEAD.match(mention.text)           # "by Friday" stays a deadline, not "on Friday"
            said = (own[0] if own else "" if _LEAD_BEFORE.search(text[:mention.start]) else _lead(mention.grain)) + _when(mention)
        if mention.text.casefold().startswith("coming ") and _BE.search(text[:mention.start]):
            said = f"{mention.text[:6]} {said}"      # "she's coming Sunday": the visit, not "this coming"
        out += [text[last:mention.start], said]
        last = mention.end
    return "".join(out) + text[last:]


def _lead(grain: str) -> str:
    return "in " if grain in ("month", "year") else "" if grain in ("week", "weekend") else "on "


def _that_day(mention) -> str:
    if mention.grain == "minute":
        return f"that day at {mention.begins:%H:%M}"
    return f"that {_part(mention.begins.hour)}" if mention.grain == "part" else "that day"


def _when(mention) -> str:
    from souveraine.language import dates

    return dates.describe(mention)


def _part(hour: int) -> str:
    return "morning" if hour < 12 else "afternoon" if hour < 17 else "evening" if hour < 22 else "night"


def speaker(text: str, who: str) -> str:
    """The first person said as ``who``: "I'm", "I've", "I prefer", "my", "me" → "the user is",
    "has", "prefers", "the user's", "the user"."""
    def subject(m: re.Match) -> str:
        joined, contracted, space, word, rest = m[1], m[3], m[4] or "", m[5] or "", m[6] or ""
        head = (f"{joined} " if joined else "") + who
        if contracted:
            return f"{head} {_CONTRACTED[contracted.replace('’', chr(39)).lower()]}{space}{word}{rest}"
        if not word:
            return head + space
        if joined:                        # "Tomás and I are": the verb agrees already
            return f"{head}{space}{word}{rest}"
        if word.casefold() in _ADVERBS and rest:
            return f"{head}{space}{word} {_third(rest.strip())}"
        return f"{head}{space}{_third(word)}{rest}"
    text = _FIRST.sub(subject, text)
    return _OBJECT.sub(lambda m: f"{who}'s" if m[1].lower() in ("my", "mine") else who, text)


def _third(verb: str) -> str:
    """The verb as said of someone else ("prefer" → "prefers"), when it is a verb in the present."""
    low = verb.casefold().replace("’", "'")
    if low in _THIRD:
        return _THIRD[low]
    if low in _UNCHANGED or not low.isalpha() or low.endswith(("ed", "ly")) or verb[:1].isupper():
        return verb
    from souveraine.language import lexicon

    if low not in lexicon.english_words():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def clip(text: str, limit: int = LIMIT) -> str:
    """At most ``limit`` characters, cut at a word."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
