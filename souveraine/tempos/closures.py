"""Which open commitment an answer fulfils — one of them, or none.

Several promises are often open at once ("I'll remind you the day before the dentist",
"I'll look up the renewal terms"). An answer that says "As promised, here is what I found
for the renewal…" keeps the second, not the first; "Reminder: the dentist is tomorrow"
keeps the first; "Lunch sounds good" keeps nothing. Each open commitment is scored
against the answer:

- the words of what was promised (its object: "renewal terms", "dentist"), stemmed,
  that the answer uses — a word several open promises share counts for less;
- the promised verb done ("booked", "committed", "reviewed"), a follow-up's marks ("as
  promised", "following up", "update:"), a reminder's ("Reminder:", "time to…", "It's
  Thursday");
- the tool calls that do it (a ``git commit`` for a commit).

An answer that only asks, or says it has not done it yet ("still waiting", "not yet",
"haven't managed"), closes nothing. The best score must clear a floor and beat the
runner-up; otherwise nothing is closed — a wrong closure hides a promise, a missed one
only leaves it open a while longer. Deterministic; a local model may settle hard cases
behind ``decide`` (docs/SUBCONSCIOUS.md).
"""

import math
import re

from souveraine.language import speech
from souveraine.language.sentences import texts
from souveraine.language.words import normal, stem, tokens
from souveraine.language.patterns import lazy

FLOOR = 1.0
_STOP = set("""
a an the that this it these those them to of for in on at by with and or my your our me you i we us he she they his
her their about up back next later tomorrow tonight today now soon week day after before also all i'll ill will shall
let let's me going gonna get got give tell find out look into check see what whether if is are was be been when once
any some more most one two three first thing morning afternoon evening lunch end monday tuesday wednesday thursday
friday saturday sunday weekend again just so as well then there here know can could would should do does did done
what's it's that's there's new over under from by than too very much many keep eye posted updated
""".split())
_FRAME_WORDS = set("remind follow circle report come ping email message update send let know keep chase nudge".split())
_NOT_YET = lazy(r"\b(?:not yet|still (?:waiting|don't|do not|haven't|have not|no|€)|haven't (?:managed|been able|had)|"
                      r"(?:couldn't|could not|can't|cannot) (?:reach|get hold|book|find|manage|access|get through)|"
                      r"no (?:reply|answer|news|word)(?: \w+)* yet|no word on|still \w+ (?:no|not)|i'm still|yet to|"
                      r"(?:is|was|are|has been) (?:delayed|postponed|pushed back|cancelled)|no change yet|nothing yet)\b")
_SPECIFIC = lazy(r"\d|[:;]\s|\n\s*(?:[-*•]|\d+[.)])|`|\|")
_CUT = lazy(r"\b(?:after|before|by|until|once|when|as soon as|first thing|tomorrow|tonight|later|next|this "
                  r"(?:afternoon|evening|morning|week)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
                  r"in (?:a|two|three|\d+) \w+)\b")
_TYPES = {
    "date": (lazy(r"\b(?:dates?|times?|timetable|schedule|hours|when|deadline|opening)\b"),
             lazy(r"\d{1,2}[:h]\d\d|\b\d{1,2}(?:st|nd|rd|th)?\b.*\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|"
                        r"dec)|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b")),
    "price": (lazy(r"\b(?:price|pricing|cost|quote|quotation|budget|fee|rate|cheapest|fees)\b"),
              lazy(r"€|\$|£|\b\d+(?:[.,]\d+)? ?(?:eur|euros?|dollars?)\b")),
}
_FOLLOW_MARK = lazy(r"\b(?:as promised|following up|follow-up|circling back|update(?: from| on)?\s*:|news on|"
                          r"good news|checking in|heads-up|heads up|reminder|friendly nudge|nudge|got back to us|replied|"
                          r"came back|just finished|here(?:'s| is| are)|i looked into|i found|found the|it's (?:monday|"
                          r"tuesday|wednesday|thursday|friday|saturday|sunday|a new week))\b")
_REMIND_MARK = lazy(r"\b(?:reminder|time to|don't forget|it's (?:monday|tuesday|wednesday|thursday|friday|saturday|"
                          r"sunday|a new week|today)|due today|is tomorrow|today's the day|nudge)\b")


def which(open_texts: list[str], answer: str, tool_calls=()) -> int | None:
    """The index of the commitment ``answer`` fulfils among ``open_texts``, or None."""
    return weigh(open_texts, answer, tool_calls)[0]


def weigh(open_texts: list[str], answer: str, tool_calls=()) -> tuple[int | None, bool]:
    """(the index or None, whether the rules are sure): unsure when the best is near the floor or the runner-up."""
    if not open_texts or not answer.strip():
        return None, True
    said = [s for s in texts(answer) if not speech.is_question(s)]
    if not said and not _FOLLOW_MARK.search(normal(answer)) and "```" not in answer:
        return None, True
    line = normal(answer.replace("```", " "))
    if _NOT_YET.search(normal(" ".join(said))):
        return None, True
    answer_words = {stem(w) for w in tokens(line)}
    objects = [_object_words(text) for text in open_texts]
    spread = {}
    for words in objects:
        for w in words:
            spread[w] = spread.get(w, 0) + 1
    scores = [_score(text, words, spread, len(open_texts), line, answer_words, tool_calls)
              for text, words in zip(open_texts, objects)]
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    best = ranked[0]
    runner = scores[ranked[1]] if len(ranked) > 1 else 0.0
    sure = abs(scores[best] - FLOOR) >= 0.5 and scores[best] - runner >= 0.75
    if scores[best] < FLOOR or scores[best] - runner < 0.25:
        return None, sure and scores[best] < FLOOR / 2
    return best, sure


def _object_words(promise: str) -> dict[str, float]:
    """The words of what was promised, each with its weight: half in a clause of time ("after the standup")."""
    text = normal(speech.unquote(promise))
    cut = _CUT.search(text, 6)
    at = cut.start() if cut else len(text)
    found: dict[str, float] = {}
    for part, weight in ((text[:at], 1.0), (text[at:], 0.5)):
        for w in tokens(part):
            if len(w) > 1 and w not in _STOP and w not in _FRAME_WORDS and not w.isdigit():
                found.setdefault(stem(w), weight)
    return found


def _shared(words: set[str], answer_words: set[str]) -> set[str]:
    """Words in both, a stem matching its longer form ("rename" and "renam", "organis" and "organiz")."""
    found = words & answer_words
    for w in words - found:
        if len(w) >= 4 and any(a.startswith(w[:max(4, len(w) - 2)]) for a in answer_words if len(a) >= 4):
            found.add(w)
    return found


def _score(promise, words, spread, count, line, answer_words, tool_calls) -> float:
    from souveraine.tempos import promises

    shared = _shared(set(words), answer_words)
    score = sum(words[w] / spread[w] * (1 + math.log(count)) / (1 + math.log(spread[w])) for w in shared)
    for wanted, evidence in _TYPES.values():
        if wanted.search(normal(promise)) and evidence.search(line):
            score += 1.0
    if not _SPECIFIC.search(line) and len(shared) < 2 and not _FOLLOW_MARK.search(line) and not tool_calls:
        score -= 1.0   # "Évora is lovely in spring": the topic named, nothing delivered
    found = promises.read(promise)
    kind, verb = (found[0], found[1]) if found else ("do", "")
    if verb and verb not in ("back", "check", "remind") and re.search(rf"\b(?:{promises.past(verb)})\b", line):
        score += 1.0
    if kind == "follow_up" and _FOLLOW_MARK.search(line):
        score += 0.5
    if verb and stem(verb.split()[0]) in answer_words and verb not in ("back",):
        score += 0.5
    if verb in ("remind", "nudge") and _REMIND_MARK.search(line):
        score += 1.0
    elif verb not in ("remind", "nudge") and _REMIND_MARK.search(line) and not shared:
        score -= 0.5
    if kind == "commit" and any(re.search(r"\bgit\b.*\b(?:commit|push)\b", c, re.I) for c in tool_calls):
        score += 1.5
    return score
