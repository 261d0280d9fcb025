"""Was the question answered — or the question the primary wished had been asked?

A deterministic check, cheap enough for every turn. For each question the user asked
(a sentence ending in "?", or opening with a question word), the answer must:

- share at least one content word with it (stemmed; stop words and words under three
  letters ignored) — an answer about something else answered another question;
- for "when" questions, hold a date, a time, a weekday, a month or a relative day;
  for "how many / much / long / old / often", hold a number;
- and not be only a question back.

An honest "I don't know" or "I'm not sure" counts as an answer. Questions with no content
word ("how are you?"), and yes/no questions with only one ("ready?"), are not judged.
Each miss becomes a line in the inner voice; nothing is flagged to the user. With a
local model configured the lead may swap in its judgement; this stays the fallback.
"""

import re

from souveraine.language.sentences import texts as sentences
from souveraine.language.words import normal, stem, tokens

_STOP = set("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off
on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves tell know please think thanks thank
hey hi hello okay ok yes yeah also really still again like want need get got make sure one any
""".split())
_QUESTION_WORD = re.compile(r"^(?:what|when|where|who|whom|whose|why|how|which|is|are|was|were|do|does|did|can|"
                            r"could|should|would|will|have|has|had|shall|may|might)\b")
_WH = re.compile(r"^(?:what|when|where|who|whom|whose|why|how|which)\b")
_WHEN = re.compile(r"^(?:when|what (?:day|date|time|year|month)|which (?:day|date|year|month))\b|\bwhat time\b")
_HOW_MUCH = re.compile(r"\bhow (?:many|much|long|old|often|far|big|tall|heavy)\b")
_TIME_WORDS = re.compile(
    r"\d|\b(?:today|tomorrow|yesterday|tonight|morning|afternoon|evening|noon|midnight|week|month|year|ago|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|spring|summer|autumn|fall|winter|soon|later|now|never|always)\b")
_NUMBER_WORDS = re.compile(r"\d|\b(?:zero|none|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                           r"dozen|hundred|thousand|million|billion|half|few|several|many|much|a lot|no)\b")
_HONEST = re.compile(r"\b(?:i don't know|i do not know|i'm not sure|i am not sure|no idea|i can't tell|"
                     r"i cannot tell|i couldn't find|i could not find|i don't have|i do not have)\b")


def questions(text: str) -> list[str]:
    found = []
    for sentence in sentences(text or ""):
        line = normal(sentence)
        if line.endswith("?") or _QUESTION_WORD.match(line) and len(line.split()) >= 3 and not line.endswith("."):
            found.append(sentence.strip())
    return found


def content_words(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w.isdigit() or (len(w) >= 3 and w not in _STOP and "'" not in w)}


def unanswered(user: str | None, assistant: str) -> list[str]:
    """The user's questions the answer seems to have missed, in the user's words."""
    if not user:
        return []
    answer = normal(assistant)
    if _HONEST.search(answer):
        return []
    statements = [s for s in sentences(assistant) if not s.rstrip().endswith("?")]
    said = content_words(" ".join(statements))
    missed = []
    for question in questions(user):
        asked = content_words(question)
        line = normal(question)
        if len(asked) < (1 if _WH.match(line) else 2):
            continue
        if not statements or not asked & said:
            missed.append(question)
        elif _WHEN.search(line) and not _TIME_WORDS.search(answer):
            missed.append(question)
        elif _HOW_MUCH.search(line) and not _NUMBER_WORDS.search(answer):
            missed.append(question)
    return missed
