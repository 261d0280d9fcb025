"""What a sentence asserts, for the archivist: a decision, a commitment, a date or time, a
number, a preference, something said of a person, or nothing worth keeping on its own.

The archivist keeps facts first, so this is where it learns which sentences are facts.
Patterns here are deliberately broad (many phrasings, not one template); the weight of a
fact is its kind, then signs that it matters to the people talking (said by the user,
in the first person, "remember", a value) less signs that it does not (a question, a
hypothetical, general knowledge). Dates and times come from ``language.dates``.
"""

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

KINDS = ("decision", "commitment", "date", "number", "preference", "person", "essence")
WEIGHT = {"decision": 6, "commitment": 6, "preference": 5, "date": 5, "number": 4, "person": 3, "essence": 0}

_DECISION = re.compile(
    r"\b(?:we|i|they|you|she|he)\s+(?:have\s+|'ve\s+|just\s+|finally\s+|all\s+)?(?:decided|agreed|chose|chosen|settled|"
    r"resolved|concluded|opted|picked|went\s+with|booked|signed|ordered|bought|reserved|confirmed|switched)\b"
    r"|\b(?:decision|decided|agreed|verdict|conclusion|final\s+answer|settled)\s*[:—–-]"
    r"|\blet's\s+(?:go\s+with|use|keep|stick\s+with|settle\s+on|pick|choose|adopt|switch\s+to|drop|do|book|make\s+it|plan\s+on|say)\b"
    r"|\b(?:we|i)(?:'ll|\s+will|\s+are\s+going\s+to|'re\s+going\s+to|'re|\s+are)\s+(?:going\s+with|go\s+with|stick\s+with|adopt|"
    r"switch\s+to|standardi[sz]e\s+on|sticking\s+with|keeping|dropping|skipping|cancelling|canceling|moving)\b"
    r"|\b(?:going|go)\s+(?:forward\s+)?with\b|\bthe\s+plan\s+is\b|\bfrom\s+now\s+on\b|\bit's\s+(?:settled|decided|final)\b"
    r"|\b(?:moved|pushed|postponed|brought\s+forward|changed|rescheduled)\s+(?:it\s+|them\s+)?(?:to|until|back)\b"
    r"|\b(?:is|are|was|has\s+been|have\s+been)\s+(?:moved|changed|postponed|cancelled|canceled|rescheduled|confirmed|booked)\b"
    r"|\b(?:instead\s+of|rather\s+than|not\s+\w+\s+but)\b.*\b(?:we|i|let's)\b|\bno\s+longer\b|\bfinal(?:ly)?\s+(?:pick|choice)\b",
    re.IGNORECASE)
_COMMITMENT = re.compile(
    r"\b(?:i|we)(?:'ll|\s+will|\s+shall|\s+promise|\s+am\s+going\s+to|'m\s+going\s+to|\s+are\s+going\s+to|'re\s+going\s+to|"
    r"\s+owe|\s+need\s+to|\s+have\s+to|\s+must|\s+should|'ve\s+got\s+to|\s+plan\s+to|'m\s+planning\s+to|\s+intend\s+to)\b"
    r"|\bpromise[sd]?\b|\bremind\s+(?:me|you|us|him|her|them)\b|\b(?:don't|do\s+not|never)\s+(?:forget|let\s+me\s+forget)\b"
    r"|\b(?:i|we)\s+commit\s+to\b|\bwill\s+get\s+back\s+to\b|\b(?:is|are)\s+due\b|\bdeadline\b|\bno\s+later\s+than\b"
    r"|\b(?:has|have)\s+to\s+be\s+(?:done|sent|signed|paid|filed|submitted|renewed|returned)\b|\bmake\s+sure\b|\bto-?do\b",
    re.IGNORECASE)
_PREFERENCE = re.compile(
    r"\b(?:prefer|prefers|preferred|preference|favou?rite|can't\s+stand|cannot\s+stand|rather\s+(?:have|not|go|do|keep)|"
    r"i'd\s+rather|we'd\s+rather|not\s+a\s+(?:big\s+)?fan|(?:a\s+)?fan\s+of|allergic|allergy|allergies|intolerant|"
    r"intolerance|vegetarian|vegan|pescatarian|gluten|lactose|teetotal|kosher|halal|doesn't\s+eat|don't\s+eat|"
    r"never\s+eats?|can't\s+eat|cannot\s+eat|hates?|loves?|dislikes?|likes?\s+(?:it|to|when|her|his|their|the|a|my|our)|"
    r"enjoys?|adores?|detests?|(?:always|never)\s+(?:drinks?|eats?|wears?|takes?|uses?|sleeps?|works?)|"
    r"please\s+(?:always|never|don't|do\s+not)|(?:always|never)\s+(?:call|write|send|use|schedule|book|put)\s+me)\b",
    re.IGNORECASE)
_MONEY = r"(?:[€$£¥]\s?\d[\d,.\s]*\d?|\d[\d,.\s]*\d?\s?(?:€|\$|£|eur|euros?|usd|dollars?|gbp|pounds?|chf|francs?|k€|k\b))"
_MEASURE = (r"\d+(?:[.,]\d+)?\s?(?:%|percent|per\s+cent|km|kms|kilometres|kilometers|miles?|m²|m2|sq\s?m|square\s+met(?:re|er)s?|"
            r"m|metres?|meters?|cm|mm|kg|kgs|kilos?|g|grams?|lbs?|pounds|litres?|liters?|l|ml|°c?|degrees?|hours?|hrs?|minutes?|"
            r"mins?|days?|weeks?|months?|years?|people|guests|tickets|rooms?|nights?|pills?|mg|tablets?|pages|words|"
            r"gb|tb|mb|ghz|cores?|users?|servers?|seats?|kwh|watts?|w|v|volts?)\b")
_PHONE = r"(?:\+\d{1,3}[\s.-]?)?(?:\(?\d{1,4}\)?[\s.-]){2,5}\d{2,4}"
_CODE = r"(?-i:\b(?:[A-Z]{1,4}-?\d{2,6}[A-Z]?|\d{3,}[A-Z]{1,3}|#\d{2,})\b)"
_NUMBER = re.compile(rf"{_MONEY}|{_MEASURE}|(?<![\w.]){_PHONE}(?![\w])|{_CODE}|\b(?:room|flat|apartment|gate|seat|platform|"
                     r"row|floor|table|line|bus|route|pin|code|number|no\.?|version|v)\s*#?\d[\w.-]*"
                     r"|\b\d+(?:[.,]\d+)?\b", re.IGNORECASE)
_REMEMBER = re.compile(r"\b(?:remember|note\s+that|for\s+the\s+record|important|keep\s+in\s+mind|fyi|heads\s+up|"
                       r"don't\s+forget|make\s+a\s+note|write\s+(?:this|that|it)\s+down|noted)\b", re.IGNORECASE)
_PERSONAL = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|we'll|us|our|you|your|you're|you'll)\b",
                       re.IGNORECASE)
_HYPOTHETICAL = re.compile(r"^\s*(?:if|maybe|perhaps|suppose|imagine|what\s+if|should\s+we|could\s+we|would\s+you|"
                           r"do\s+you\s+think|i\s+wonder|in\s+general|generally|typically|usually\s+people)\b"
                           r"|\b(?:might|could\s+be|would\s+be|may\s+be|for\s+example|e\.g\.|such\s+as|in\s+theory)\b",
                           re.IGNORECASE)
_PLEASANTRY = re.compile(r"^\s*(?:thanks?|thank\s+you|cheers|great|perfect|lovely|ok(?:ay)?|sure|sounds\s+good|got\s+it|"
                         r"no\s+worries|you're\s+welcome|glad|haha|lol|yes|yeah|yep|nope|no|hi|hello|hey|bye|good\s+(?:morning|night))\b"
                         r"[\s,.!]*(?:\w+[\s,.!]*){0,4}$", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*(?:what|what's|how|why|when|where|who|which|is|are|do|does|did|can|could|should|would|"
                       r"will|any|anyone|is\s+there)\b(?!.*[.!]\s*$)", re.IGNORECASE)
# A date phrase names a moment when it holds a figure, a day's or month's name, or a day relative to
# today; "one afternoon", "all night" or "this year" place nothing worth keeping.
_DAY_OR_MONTH = (r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b"
                 r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b")
_NAMED_DAY = re.compile(_DAY_OR_MONTH, re.IGNORECASE)
_SPECIFIC = re.compile(r"\d|" + _DAY_OR_MONTH +
                       r"|\b(?:today|tomorrow|tonight|yesterday|next|last|weekend|noon|midnight|christmas|easter)\b",
                       re.IGNORECASE)
# A weekday said as a habit ("on Mondays", "every other Tuesday") is a when as much as a date is.
_RECURRING = re.compile(r"\b(?:every\s+(?:other\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
                        r"(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b", re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:on|at|by|in|from|until|till|before|after|since|for)\s+)+", re.IGNORECASE)
_NOW = datetime(2026, 1, 1, 12, 0)


@dataclass(frozen=True)
class Reading:
    kind: str
    weight: float
    values: tuple[str, ...]     # the dates, times and numbers the sentence holds, as written


def read(sentence: str, role: str = "user", names: list[str] = ()) -> Reading:
    """What ``sentence`` (said by ``role``) asserts, and how much it weighs."""
    dated = tuple(dict.fromkeys([*(_LEAD.sub("", d) for d in _dates(sentence) if _SPECIFIC.search(d)),
                                 *(m[0] for m in _RECURRING.finditer(sentence))]))
    values = tuple(dict.fromkeys([*dated, *_numbers(sentence, dated)]))
    kind = _kind(sentence, bool(dated), bool(values), names)
    if (kind == "essence" and _PLEASANTRY.match(sentence)) or (kind in _SLIGHT and _small_talk(sentence, names)):
        return Reading("essence", -5, values)
    weight = WEIGHT[kind]
    if sentence.rstrip().endswith("?") or _QUESTION.match(sentence):
        weight -= 4
    if _HYPOTHETICAL.search(sentence):
        weight -= 2
    if _REMEMBER.search(sentence):
        weight += 2
    if role == "user":
        weight += 1
    if not _PERSONAL.search(sentence) and not names:
        weight -= 2
    weight += min(2, 0.5 * len(values))
    return Reading(kind, weight, values)


# A decision or a commitment counts however short ("I'll send it tomorrow."); a liking or a day may be small talk.
_SLIGHT = ("preference", "date", "essence")
# Words that place a small-talk sentence in the day without naming a moment ("See you tomorrow.").
_DAYTIME = frozenset("today tonight tomorrow yesterday weekend morning afternoon evening night week".split())
_WORD = re.compile(r"[^\W\d_]+")


def _small_talk(sentence: str, names) -> bool:
    """A short sentence of everyday words only — no figure, no weekday or month, no name — keeps
    no fact, whatever its cue words ("Love it.", "Enjoy your weekend!", "See you tomorrow.")."""
    from souveraine.language import lexicon

    if names or any(ch.isdigit() for ch in sentence) or _NAMED_DAY.search(sentence):
        return False
    words = [w.lower() for w in _WORD.findall(sentence)]
    return 0 < len(words) <= 6 and all(len(w) <= 2 or w in _DAYTIME or lexicon.everyday(w) for w in words)


def _kind(sentence: str, dated: bool, valued: bool, names) -> str:
    if _DECISION.search(sentence):
        return "decision"
    if _COMMITMENT.search(sentence):
        return "commitment"
    if _PREFERENCE.search(sentence):
        return "preference"
    if dated:
        return "date"
    if valued:
        return "number"
    if names:
        return "person"
    return "essence"


@lru_cache(maxsize=4096)
def _dates(sentence: str) -> tuple[str, ...]:
    from souveraine.language import dates

    return tuple(m.text for m in dates.find(sentence, _NOW))


def _numbers(sentence: str, taken: tuple[str, ...]) -> list[str]:
    found = []
    for match in _NUMBER.finditer(sentence):
        text = match[0].strip(" ,.")
        if not any(ch.isdigit() for ch in text) or any(text in d for d in taken):
            continue
        found.append(text)
    return found


def subject(sentence: str, values: tuple[str, ...]) -> set[str]:
    """The content words a fact is about, without its values: what two versions of one fact share."""
    from souveraine.inference import extractive

    rest = sentence
    for value in values:
        rest = rest.replace(value, " ")
    return {w for w in extractive.content_words(rest) if not any(ch.isdigit() for ch in w)}
