"""Date phrases in a query: "in March", "last week", "between August 11 and 15 2023".

Each phrase names a period (a day, a week, a month, a year, a run of days) and, through the
word before it, how that period bounds the search: ``in``/``on``/``during`` keep the period,
``since``/``from`` start at it, ``after`` starts past it, ``before`` ends before it,
``until``/``to``/``through`` end with it. Two phrases joined as a range ("between A and B",
"from A to B") make one period, and a year written on one side holds for both. A relative
phrase tied to a day ("last Friday on 23 January 2022") counts from that day; "the week
before August 3" is the seven days before it.

Periods resolve against an *anchor*: the memory's own time (its latest turn) or a given
``--now``, never the wall clock, so "last year" in a memory of 2023's conversations is 2022.
A month or day named without its year is the latest one not after the anchor, and the
reading says so (``Reading.note``). In a query the phrases are evidence for the ranking,
not a filter; ``--since`` and ``--until`` take the same phrases as hard bounds.

A month name counts only with a word or number beside it ("in May", "May 2025", "3 May",
"last May"): "may" and "march" are also everyday words.
"""

import re
from functools import cache
from datetime import date, timedelta

from souveraine.record import Frozen, Record

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}
RELATIVE = frozenset({"relative_day", "ago", "last_n", "named_period", "weekday", "weekend"})

_PREP = (r"(?:(?P<prep>in|on|during|of|since|from|after|before|until|till|to|through|by|between|over|within|around|"
         r"as\s+of)\s+)?")
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_N = r"\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|couple\s+of|few"
_YEAR = r"(?:,?\s+(?P<y>(?:19|20)\d\d))?"
_PATTERNS = {
    "iso_day": r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})",
    "iso_month": r"(?P<y>\d{4})-(?P<m>\d{1,2})(?![-\d])",
    "relative_day": r"(?P<word>today|tonight|this morning|this afternoon|this evening|earlier today|yesterday|"
                    r"the day before yesterday)",
    "ago": rf"(?P<n>{_N})\s+(?P<unit>day|week|month|year)s?\s+ago",
    "last_n": rf"(?:the\s+)?(?:last|past|previous)\s+(?P<n>{_N})\s+(?P<unit>day|week|month|year)s",
    "week_of": rf"(?:the\s+)?(?P<ord>first|second|third|fourth|last)\s+(?P<unit>week|weekend)\s+of\s+"
               rf"(?P<mon>{_MONTH})\.?{_YEAR}",
    "part_of_month": rf"(?:the\s+)?(?P<part>early|mid|late|beginning\s+of|start\s+of|middle\s+of|end\s+of)[\s-]+"
                     rf"(?P<mon>{_MONTH})\.?{_YEAR}",
    "named_period": r"(?P<the>the\s+)?(?P<which>last|this|past|previous)\s+(?P<unit>week|month|year)",
    "weekend": r"(?P<which>last|this|the)\s+weekend",
    "weekday": r"(?P<which>last|this)?\s*(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
    "day_range": rf"(?:the\s+)?(?P<d1>\d{{1,2}}){_ORD}\s*(?:-|–|to|and|until|through)\s*(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s+"
                 rf"(?:of\s+)?(?P<mon>{_MONTH})\.?{_YEAR}",
    "month_range": rf"(?P<mon>{_MONTH})\.?\s+(?P<d1>\d{{1,2}}){_ORD}\s*(?:-|–|to|and|until|through)\s*(?P<d>\d{{1,2}}){_ORD}"
                   rf"(?!\d){_YEAR}",
    "day_month": rf"(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MONTH})\.?{_YEAR}",
    "month": rf"(?P<which>last|this)?\s*(?P<mon>{_MONTH})\.?(?:\s+(?P<d>\d{{1,2}}){_ORD}(?!\d))?{_YEAR}",
    "year": r"(?P<y>(?:19|20)\d\d)",
}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}
_RANGE_GLUE = r"^\s*(?:and|to|until|till|through|-|–)\s*$"
_TIED = r"^\s*,?\s*$"
_OFFSET = rf"(?:the\s+)?(?:(?P<n>{_N})\s+)?(?P<unit>day|week|weekend|month)s?\s*$"
# Every phrase holds a digit or one of these words: a text without any has no date to read,
# and the patterns (compiled on first use: tens of milliseconds) are not needed.
_HINTS = frozenset([*MONTHS, *WEEKDAYS, *UNITS, *(f"{u}s" for u in UNITS), "weekend", "weekends", "today",
                    "tonight", "morning", "afternoon", "evening", "yesterday"])
_LETTERS = re.compile(r"[a-z]+")


class Span(Frozen):
    """Inclusive dates; None leaves that side open."""

    __slots__ = _fields = ("since", "until")

    def __init__(self, since: date | None = None, until: date | None = None):
        object.__setattr__(self, "since", since)
        object.__setattr__(self, "until", until)

    def narrow(self, other: "Span") -> "Span":
        since = max(filter(None, (self.since, other.since)), default=None)
        until = min(filter(None, (self.until, other.until)), default=None)
        return Span(since, until)

    @property
    def empty(self) -> bool:
        return bool(self.since and self.until and self.since > self.until)

    @property
    def open(self) -> bool:
        return self.since is None and self.until is None

    def to_dict(self) -> dict:
        return {"since": self.since.isoformat() if self.since else None,
                "until": self.until.isoformat() if self.until else None}


class Reading(Frozen):
    """How one phrase was read: its period and, in words, anything that was guessed."""

    __slots__ = _fields = ("phrase", "span", "note", "ambiguous")

    def __init__(self, phrase: str, span: Span, note: str = "", ambiguous: bool = False):
        object.__setattr__(self, "phrase", phrase)
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "ambiguous", ambiguous)

    def to_dict(self) -> dict:
        return {"phrase": self.phrase, **self.span.to_dict(), "note": self.note, "ambiguous": self.ambiguous}


class Found(Frozen):
    __slots__ = _fields = ("span", "text", "phrases", "readings")

    def __init__(self, span: Span, text: str, phrases: list[str] | None = None, readings: list[Reading] | None = None):
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "text", text)         # the query without its date phrases
        object.__setattr__(self, "phrases", [] if phrases is None else phrases)
        object.__setattr__(self, "readings", [] if readings is None else readings)


class _Phrase(Record):
    __slots__ = _fields = ("name", "match", "start", "end", "period", "prep")

    def __init__(self, name: str, match: re.Match, start: int, end: int, period: tuple[date, date], prep: str):
        self.name, self.match, self.start, self.end, self.period, self.prep = name, match, start, end, period, prep


def extract(query: str, today: date, anchor: str = "") -> Found:
    """The date phrases in ``query`` read against ``today`` (the anchor), their combined span,
    and the words left to search. ``anchor`` names where ``today`` came from, for the notes."""
    if not hinted(query):
        return Found(Span(), " ".join(query.split()))
    folded = query.translate(_FOLD)     # the same length: positions hold in the query as typed
    found = _combine(list(_scan(folded, today)), folded, today)
    span, readings, text = Span(), [], query
    for phrase in sorted(found, key=lambda p: -p.start):
        text = f"{text[:phrase.start]} {text[phrase.end:]}"
    for phrase in found:
        bounded = _bound(phrase.prep, *phrase.period)
        span = span.narrow(bounded)
        note, ambiguous = _note(phrase, today, anchor)
        readings.append(Reading(query[phrase.start:phrase.end].strip(), bounded, note, ambiguous))
    return Found(span, " ".join(text.split()), [r.phrase for r in readings], readings)


def bound(value: str, today: date, end: bool) -> date | None:
    """A --since or --until value: an ISO day, month or year, or a phrase; None if unreadable.

    ``end`` picks the period's last day (for --until) instead of its first.
    """
    found = extract(f"in {value.strip()}", today)
    if found.text or not found.phrases:
        return None
    return found.span.until if end else found.span.since


def days_between(span: Span, day: date) -> int:
    """How many days ``day`` lies outside ``span``: negative before it, positive after, 0 within."""
    if span.since and day < span.since:
        return (day - span.since).days
    if span.until and day > span.until:
        return (day - span.until).days
    return 0


# -- finding ---------------------------------------------------------------------------------


def hinted(text: str) -> bool:
    """Whether ``text`` may hold a date phrase (a digit, a month, a weekday, a unit of time…)."""
    return any(c.isdigit() for c in text) or not _HINTS.isdisjoint(_LETTERS.findall(text.lower()))


# The letters each pattern cannot match without (any one of them, in the lowered text), or a
# digit: a pattern whose key is absent is not compiled (compiling them all takes tens of ms).
_MONTH_KEYS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_KEYS: dict[str, tuple[str, ...]] = {
    "relative_day": ("today", "tonight", "morning", "afternoon", "evening", "yesterday"),
    "ago": ("ago",), "last_n": ("days", "weeks", "months", "years"),
    "named_period": ("week", "month", "year"), "weekend": ("weekend",), "weekday": tuple(WEEKDAYS),
    **{name: _MONTH_KEYS for name in ("week_of", "part_of_month", "day_range", "month_range", "day_month", "month")},
}
# What IGNORECASE also matches to an ASCII letter (ſ, ı, İ, the Kelvin sign), folded before
# reading: a key test then never misses a phrase, and a matched word is a key of MONTHS.
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})


def _compiled(text: str = "") -> dict[str, re.Pattern]:
    """The patterns ``text`` (folded) may match, in their fixed order (every one for no text)."""
    lowered = text.lower()
    digits = not text or any(c.isdigit() for c in text)
    return {name: _pattern(name) for name in _PATTERNS
            if not text or (any(k in lowered for k in _KEYS[name]) if name in _KEYS else digits)}


@cache
def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){_PREP}{_PATTERNS[name]}(?![\w-])", re.IGNORECASE)


def _scan(text: str, today: date):
    """Each phrase that counts as a date, left to right (earliest, then longest)."""
    scan = text  # phrases found, or that are no dates (2026-02-31), are masked out as found
    while (match := _first(scan)) is not None:
        name, found = match
        start, end = found.span()
        period = _period(name, found, today)
        scan = scan[:start] + "\0" * (end - start) + scan[end:]
        if period is not None:
            prep = (found["prep"] or "").lower().replace(" ", "")
            yield _Phrase(name, found, start, end, period, "in" if name.endswith("range") else prep)


def _first(text: str) -> tuple[str, re.Match] | None:
    best = None
    for name, pattern in _compiled(text).items():
        for match in pattern.finditer(text):
            if not _counts(name, match):
                continue
            key = (match.start(), -len(match.group(0)))
            if best is None or key < best[0]:
                best = (key, name, match)
            break
    return (best[1], best[2]) if best else None


def _counts(name: str, match: re.Match) -> bool:
    if name == "month":
        return bool(match["prep"] or match["which"] or match["d"] or match["y"])
    if name in ("year", "weekday"):
        return bool(match["prep"] or (name == "weekday" and match["which"]))
    return True


def _combine(found: list[_Phrase], text: str, today: date) -> list[_Phrase]:
    """Ranges, offsets and relative phrases tied to a day, each made one phrase."""
    out: list[_Phrase] = []
    for phrase in found:
        before = out[-1] if out else None
        glue = text[before.end:phrase.start] if before else ""
        tied = re.match(_TIED, glue) is not None
        if before and before.prep in ("between", "from") and (
                re.match(_RANGE_GLUE, glue, re.IGNORECASE) or (tied and phrase.prep in ("to", "until", "till", "through"))):
            first = _with_year(before, phrase, today)
            out[-1] = _Phrase("range", before.match, before.start, phrase.end, (first[0], phrase.period[1]), "in")
        elif (before and before.name in RELATIVE and phrase.name not in RELATIVE and tied
              and phrase.prep in ("", "on", "asof")):
            anchor = phrase.period[1]
            start = _period(before.name, before.match, anchor)[0]
            out[-1] = _Phrase("tied", before.match, before.start, phrase.end, (min(start, anchor), anchor), before.prep)
        else:
            offset = _offset(phrase, text) if phrase.prep in ("before", "after") else None
            out.append(offset or phrase)
    return out


def _with_year(first: _Phrase, second: _Phrase, today: date) -> tuple[date, date]:
    """The first side of a range, in the second side's year when only the second wrote one."""
    groups = first.match.groupdict()
    if groups.get("y") or not groups.get("mon") or not second.match.groupdict().get("y"):
        return first.period
    year = second.period[1].year
    month = MONTHS[groups["mon"].lower().rstrip(".")]
    if groups.get("d"):
        day = date(year, month, int(groups["d"]))
        return day, day
    return _month_span(year, month)


def _offset(phrase: _Phrase, text: str) -> _Phrase | None:
    """"the week before August 3": the period of that length just before (or after) the day."""
    found = re.search(_OFFSET, text[:phrase.start], re.IGNORECASE)
    if not found or (found.start() and text[found.start() - 1].isalnum()):
        return None
    n = _number(found["n"]) if found["n"] else 1
    length = {"day": 1, "week": 7, "weekend": 2, "month": 30}[found["unit"].lower()] * n
    if phrase.prep == "before":
        end = phrase.period[0] - timedelta(days=1)
        period = (end - timedelta(days=length - 1), end)
    else:
        start = phrase.period[1] + timedelta(days=1)
        period = (start, start + timedelta(days=length - 1))
    return _Phrase("offset", phrase.match, found.start(), phrase.end, period, "in")


# -- reading ---------------------------------------------------------------------------------


def _period(name: str, m: re.Match, today: date) -> tuple[date, date] | None:
    try:
        return _PERIODS[name](m, today)
    except ValueError:          # 2026-02-31, 31 April: not a date, so not a date phrase
        return None


def _iso_day(m, today):
    day = date(int(m["y"]), int(m["m"]), int(m["d"]))
    return day, day


def _iso_month(m, today):
    return _month_span(int(m["y"]), int(m["m"]))


def _relative_day(m, today):
    word = m["word"].lower()
    back = 2 if word.startswith("the day before") else 1 if word == "yesterday" else 0
    day = today - timedelta(days=back)
    return day, day


def _ago(m, today):
    n, unit = _number(m["n"]), m["unit"].lower()
    if unit == "day":
        day = today - timedelta(days=n)
        return day, day
    if unit == "week":
        return _week_span(today - timedelta(weeks=n))
    if unit == "month":
        return _month_span(*_add_months(today.year, today.month, -n))
    return date(today.year - n, 1, 1), date(today.year - n, 12, 31)


def _last_n(m, today):
    n, unit = _number(m["n"]), m["unit"].lower()
    return today - timedelta(days=n * UNITS[unit]), today


def _named_period(m, today):
    which, unit = m["which"].lower(), m["unit"].lower()
    if which == "past" or (m["the"] and which in ("last", "previous")):
        return today - timedelta(days=UNITS[unit]), today       # "in the last year": the 365 days up to now
    back = 0 if which == "this" else 1
    if unit == "week":
        start, end = _week_span(today - timedelta(weeks=back))
    elif unit == "month":
        start, end = _month_span(*_add_months(today.year, today.month, -back))
    else:
        start, end = date(today.year - back, 1, 1), date(today.year - back, 12, 31)
    return start, min(end, today) if back == 0 else end


def _weekend(m, today):
    saturday = today - timedelta(days=(today.weekday() - 5) % 7)
    if m["which"].lower() == "last" and saturday >= today - timedelta(days=1):
        saturday -= timedelta(days=7)
    return saturday, saturday + timedelta(days=1)


def _weekday(m, today):
    back = (today.weekday() - WEEKDAYS[m["wd"].lower()]) % 7 or (0 if (m["which"] or "").lower() == "this" else 7)
    day = today - timedelta(days=back)
    return day, day


def _week_of(m, today):
    start, end = _month(m, today)
    if m["ord"].lower() == "last":
        first = end - timedelta(days=6)
    else:
        first = start + timedelta(days=7 * (ORDINALS[m["ord"].lower()] - 1))
    if m["unit"].lower() == "weekend":
        saturdays = [first + timedelta(days=k) for k in range(7) if (first + timedelta(days=k)).weekday() == 5]
        return saturdays[0], saturdays[0] + timedelta(days=1)
    return first, min(first + timedelta(days=6), end)


def _part_of_month(m, today):
    start, end = _month(m, today)
    part = " ".join(m["part"].lower().split())
    if part in ("early", "beginning of", "start of"):
        return start, start + timedelta(days=9)
    if part in ("mid", "middle of"):
        return start + timedelta(days=9), start + timedelta(days=19)
    return start + timedelta(days=20), end


def _month(m, today):
    groups = m.groupdict()
    month = MONTHS[m["mon"].lower().rstrip(".")]
    which = (groups.get("which") or "").lower()
    day = int(groups["d"]) if groups.get("d") else None
    if m["y"]:
        year = int(m["y"])
    elif which == "this":
        year = today.year
    else:
        year = today.year if (month, day or 1) <= (today.month, today.day) else today.year - 1
        if which == "last" and year == today.year and month == today.month:
            year -= 1
    if day:
        found = date(year, month, day)
        return found, found
    return _month_span(year, month)


def _day_range(m, today):
    last = _month(m, today)[1]
    return last.replace(day=int(m["d1"])), last


def _year(m, today):
    year = int(m["y"])
    return date(year, 1, 1), date(year, 12, 31)


_PERIODS = {
    "iso_day": _iso_day, "iso_month": _iso_month, "relative_day": _relative_day, "ago": _ago,
    "last_n": _last_n, "named_period": _named_period, "weekend": _weekend, "weekday": _weekday,
    "week_of": _week_of, "part_of_month": _part_of_month, "day_month": _month, "day_range": _day_range, "month_range": _day_range, "month": _month, "year": _year,
}


def _note(phrase: _Phrase, today: date, anchor: str) -> tuple[str, bool]:
    """What was guessed in reading a phrase, in words; and whether it was a guess at all."""
    groups = phrase.match.groupdict()
    base = f"counted from {today.isoformat()}{' (' + anchor + ')' if anchor else ''}"
    if phrase.name in RELATIVE:
        return base, False
    if phrase.name == "tied":
        return f"counted from {phrase.period[1].isoformat()}, the day it names", False
    if groups.get("mon") and not groups.get("y") and phrase.name != "range":
        month = groups["mon"].capitalize()
        return f"no year given: the latest {month} up to {today.isoformat()}{' (' + anchor + ')' if anchor else ''}", True
    return "", False


def _bound(prep: str | None, start: date, end: date) -> Span:
    prep = prep or "in"
    if prep in ("since", "from"):
        return Span(start, None)
    if prep == "after":
        return Span(end + timedelta(days=1), None)
    if prep == "before":
        return Span(None, start - timedelta(days=1))
    if prep in ("until", "till", "to", "through", "by"):
        return Span(None, end)
    return Span(start, end)


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBERS[" ".join(text.lower().split())]


def _month_span(year: int, month: int) -> tuple[date, date]:
    from calendar import monthrange         # only when a date is read: most queries name none

    return date(year, month, 1), date(year, month, monthrange(year, month)[1])


def _week_span(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1
