"""Was the question answered? Flag only what surely was not.

A false "may have gone unanswered" costs the agent's attention every wake, so the check
is built for precision. An answer need not share a word with the question ("What's the
weather like in March?" — "Mild: highs around 16 to 17°C"); what it must hold depends on
what was asked:

- *when / what time / what day* — a date or a time (``language.dates``, or clock words);
- *how many / much / long / far / old / often* — a number or an amount;
- *who* — a name or a person;
- *why* — a reason ("because", "since", "so", "due to", a colon…);
- *where* — a place (a name, a number, "near", "next to", "at the"…);
- *which* — something the question did not already name.

Whatever was asked, an answer that is only a question back, only a pleasantry ("You're
welcome!"), or a change of subject ("Let's focus on…") misses it. Yes/no questions and
open questions ("what does a rebase do?", "should I take the job?") are flagged only
then: any statement may answer them. Not flagged: an honest "I don't know", a promise to
find out (the ledger keeps that), questions with no content ("how are you?").
Deterministic; a local model may settle hard cases (docs/SUBCONSCIOUS.md).
"""

import re

from souveraine.language import speech
from souveraine.language.sentences import texts
from souveraine.language.words import normal, stem, tokens
from souveraine.language.patterns import lazy

_STOP = set("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off
on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves tell know please think thanks thank
hey hi hello okay ok yes yeah also really still again like want need get got make sure one any quick what's
where's who's how's it's i'm remind idea
""".split())
_OPENER = lazy(r"^(?:(?:hey|hi|ok(?:ay)?|so|also|and|thanks!?|quick one|remind me|sorry)[,:!.—\s-]+)+")
_WH = lazy(r"^(?:what|when|where|who|whom|whose|why|how|which)\b")
_WHEN = lazy(r"^(?:when|what (?:day|date|time|year|month)|which (?:day|date|year|month)|by when|until when|"
                   r"what(?:'s| is) the (?:due date|date|deadline|best time|best day|best month))\b|\bwhat time\b|"
                   r"\bwhat year\b|\bwhich day\b|\bwhen(?:'s| is| are| do| does| did| can| will| should)\b")
_AMOUNT = lazy(r"\bhow (?:many|much|long|old|often|far|big|tall|heavy|late|early)\b|\bwhat(?:'s| is) (?:\d+|the "
                     r"(?:price|cost|total|number|score))\b|\bwhat percentage\b")
_WHO = lazy(r"^(?:who|whom|whose)\b|\bwho(?:'s| is| should| will)\b")
_WHY = lazy(r"^why\b|\bwhy (?:is|does|did|do|are|was|were)\b")
_WHERE = lazy(r"^where\b|\bwhere(?:'s| is| are| did| do| can| should| i| we| you| he| she| they| it)\b")
_WHICH = lazy(r"^(?:which|what) (?!(?:is|are|was|were|do|does|did|'s)\b)\w+|^which\b"
                    r"|^what(?:'s| is| are) the (?:best|fastest|cheapest|quickest|easiest|nearest|closest|shortest|"
                    r"safest|simplest|latest|next)\b")
_NAMED = lazy(r"^what(?:'s| is| are| was) (?:the |your |my |his |her |their |our )?(?:[\w'-]+ ){0,2}(?:address|"
                    r"name|number|email|phone|password|code|url|link|score|status|total|difference)\b")
_YES_NO = lazy(r"^(?:is|are|was|were|do|does|did|can|could|should|would|will|have|has|had|shall|may|might|"
                     r"any (?:news|chance))\b")
_CLOCK = lazy(r"\b\d{1,2}(?:[:h.]\d\d|\s?[ap]\.?m\b)|\b(?:1\d|20)\d\d\b|\b\d{1,2}(?:st|nd|rd|th)\b|\bat \d{1,2}\b"
                    r"|^\W*\d{1,4}\W*$")
_DURATION = lazy(r"(?<!times )\b(?:\d+(?:[.,]\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|"
                       r"thirty|forty|half an?|a couple of|a few|several)\s?(?:-\s?\w+ )?(?:h|hrs?|hours?|minutes?|mins?|"
                       r"days?|weeks?|months?|years?|km|kilometres?|kilometers?|miles?|m|metres?|meters?)\b(?! a\b)"
                       r"|\b(?:halfway|overnight|\d+h\d*)\b")
_TIME = lazy(r"\b(?:today|tomorrow|yesterday|tonight|morning|afternoon|evening|noon|midnight|week|month|year|"
                   r"ago|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|"
                   r"june|july|august|september|october|november|december|spring|summer|autumn|fall|winter|soon|"
                   r"later|now|never|always|weekdays?|weekends?|daily|hourly|o'clock|any ?time|whenever|ten|eleven|twelve|noon|"
                   r"eight in the|nine in the|seven in the)\b")
_NUMBER = lazy(r"\d|\b(?:zero|none|one(?! of)|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|"
                     r"thirty|forty|fifty|hundred|thousand|million|dozen|half|quarter|a few|several|a lot|"
                     r"nothing|free|twice|once|minutes?|hours?|days?|weeks?|months?|years?)\b|%|€|\$|£")
_PERSON = lazy(r"\b(?:he|she|they|him|her|his|hers|their|them|someone|nobody|no one|everyone|the team|your|my|i|"
                     r"you|we)\b")
_REASON = lazy(r"\b(?:because|since|so|due to|caused|cause|reason|likely|probably|means|as|if|when|too|not "
                     r"enough|over-|under-|try|it's|it is)\b|[:—;]")
_PLACE = lazy(r"\b(?:room|floor|\d+\w? floor|near|next to|behind|in the|at the|on the|inside|outside|under|upstairs|downstairs|"
                    r"left|right|floor|street|rua|avenida|road|folder|drawer|with)\b")
_PLEASANTRY = lazy(
    r"^(?:(?:you're|you are) (?:very )?welcome|no problem|happy to help|anytime|any time|glad (?:to help|i could help)|"
    r"great|sounds good|good luck|enjoy|cheers|of course|my pleasure|sure thing|ok(?:ay)?|lol|haha|nice|cool|"
    r"that's (?:a )?(?:good|great) (?:question|point)|good question|interesting)[\s!.,]*$")
_DEFLECT = lazy(r"^(?:let's (?:focus|talk|move|get back|not)|let's \w+.*\bfirst\b|anyway|moving on|first,? let's|before that|"
                      r"that's not (?:important|relevant))\b")
_HONEST = lazy(r"\b(?:i don't know|i do not know|i'm not sure|i am not sure|no idea|i can't tell|i cannot tell|"
                     r"i couldn't find|i could not find|i don't have|i do not have|i can't|i cannot|not yet|"
                     r"i haven't|not sure)\b")


def questions(text: str) -> list[str]:
    """The questions in a message, as written."""
    return [s.strip() for s in texts(text or "") if speech.is_question(s)]


def content_words(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w.isdigit() or (len(w) >= 3 and w not in _STOP and "'" not in w)}


def unanswered(user: str | None, assistant: str) -> list[str]:
    """The user's questions the answer surely missed, in the user's words."""
    if not user or not assistant:
        return []
    said = [s for s in texts(assistant) if not speech.is_question(s)]
    answer = normal(" ".join(said))
    if _HONEST.search(answer) or _defers(assistant):
        return []
    return [q for q in questions(user) if _missed(q, said, answer)]


def _defers(assistant: str) -> bool:
    from souveraine.tempos import promises

    return any(p.kind in ("follow_up", "do") for p in promises.find(assistant))


def _missed(question: str, said: list[str], answer: str) -> bool:
    line = _OPENER.sub("", normal(question))
    asked = content_words(line) | {w for w in tokens(line) if len(w) == 2 and w not in _STOP}
    if not asked:
        return False
    if not said or all(_PLEASANTRY.match(normal(s)) for s in said) or _DEFLECT.match(answer):
        return True
    if re.search(r"\bwhat time\b", line):
        return not (_CLOCK.search(answer) or re.search(r"\b(?:noon|midnight|morning|afternoon|evening|night|o'clock|"
                                                         r"ten|eleven|twelve|eight|nine|seven|six|any ?time|whenever|"
                                                         r"now|soon|later)\b", answer) or _has_date(answer, timed=True))
    if _WHEN.search(line):
        return not (_TIME.search(answer) or _CLOCK.search(answer) or _has_date(answer))
    if re.search(r"\bhow (?:long|far)\b", line):
        return not _DURATION.search(answer)
    if _AMOUNT.search(line):
        return not _NUMBER.search(answer)
    if _WHY.search(line):
        return not _REASON.search(answer) and _restates(question, said, answer)
    if re.match(r"^(?i:who)(?:'s| is| was) [A-Z]", question.strip()):
        return False
    if _WHO.search(line):
        return not (_new_names(question, said) or _PERSON.search(answer))
    if _WHERE.search(line):
        return not (_new_names(question, said) or _PLACE.search(answer))
    if (_WHICH.match(line) or _NAMED.search(line)) and not _YES_NO.match(line):
        return _restates(question, said, answer)
    return False


_CALENDAR = lazy(r"^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|"
                       r"june|july|august|september|october|november|december)s?$")


def _has_date(answer: str, timed: bool = False) -> bool:
    from datetime import datetime

    from souveraine.language import dates

    found = dates.find(answer, datetime(2000, 1, 1))
    return any(m.timed for m in found) if timed else bool(found)


def _new_names(question: str, said: list[str]) -> set[str]:
    """Capitalised words of the answer the question did not use (a name, a place)."""
    known = {w.casefold() for w in re.findall(r"\w+", question)}
    lower = {w for s in said for w in re.findall(r"\w+", s) if w.islower()}
    found = set()
    for sentence in said:
        words = re.findall(r"[^\W\d_][\w'’-]*", sentence)
        for i, word in enumerate(words):
            opener = i == 0 and word.casefold() not in _STOP and word.casefold() not in lower \
                and not re.search(r"(?:ing|ed|ly|s)$", word)
            if word[0].isupper() and word.casefold() not in known and (i > 0 or opener) \
                    and not (word.isupper() and len(word) <= 4) and not _CALENDAR.match(word.casefold()):
                found.add(word)
    return found


def _restates(question: str, said: list[str], answer: str) -> bool:
    """Does the answer only talk about the question's subject — one plain sentence that names
    nothing new (no number, no new name, no code, no list) and reuses the question's words?"""
    if re.search(r"\d|`|\n\s*[-*\d]|[:;—–]", answer) or _new_names(question, said) or len(said) > 1:
        return False
    return bool(content_words(answer) & content_words(question)) and \
        bool(re.match(r"^[\w' -]+? (?:is|are|was|were|gets|get|looks|seems|has|have|will be|can be)\b", answer))
