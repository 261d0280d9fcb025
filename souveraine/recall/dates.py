"""Date phrases in a query: "in March", "last week", "2026-05", "since May", "yesterday".

Each phrase names a period (a day, a week, a month, a year, a run of days) and, through the
word before it, how that period bounds the search: ``in``/``on``/``during`` keep the period,
``since``/``from`` start at it, ``after`` starts past it, ``before`` ends before it,
``until``/``to``/``through`` end with it. Periods resolve against ``today`` (from the one clock);
a month or a day named without its year is the latest one not in the future. Several
phrases narrow each other. The phrases are cut from the text, so they filter, not match.

A month name counts only with a word or number beside it ("in May", "May 2025", "3 May",
"last May"): "may" and "march" are also everyday words.
"""

import re
from calendar import monthrange
from dataclasses import dataclass, field
from datetime import date, timedelta

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}

_PREP = r"(?:(?P<prep>in|on|during|of|since|from|after|before|until|till|to|through|by)\s+)?"
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_PATTERNS = {
    "iso_day": r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})",
    "iso_month": r"(?P<y>\d{4})-(?P<m>\d{1,2})(?![-\d])",
    "relative_day": r"(?P<word>today|tonight|this morning|this afternoon|this evening|earlier today|yesterday|the day before yesterday)",
    "ago": r"(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<unit>day|week|month|year)s?\s+ago",
    "last_n": r"(?:the\s+)?(?:last|past|previous)\s+(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<unit>day|week|month|year)s",
    "named_period": r"(?:the\s+)?(?P<which>last|this|past|previous)\s+(?P<unit>week|month|year)",
    "weekday": r"(?P<which>last|this)?\s*(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
    "day_month": rf"(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MONTH})\.?(?:,?\s+(?P<y>\d{{4}}))?",
    "month": rf"(?P<which>last|this)?\s*(?P<mon>{_MONTH})\.?(?:\s+(?P<d>\d{{1,2}}){_ORD}(?!\d))?(?:,?\s+(?P<y>\d{{4}}))?",
    "year": r"(?P<y>(?:19|20)\d\d)",
}
_COMPILED = {name: re.compile(rf"(?<![\w-]){_PREP}{body}(?![\w-])", re.IGNORECASE) for name, body in _PATTERNS.items()}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10}


@dataclass(frozen=True)
class Span:
    """Inclusive dates; None leaves that side open."""

    since: date | None = None
    until: date | None = None

    def narrow(self, other: "Span") -> "Span":
        since = max(filter(None, (self.since, other.since)), default=None)
        until = min(filter(None, (self.until, other.until)), default=None)
        return Span(since, until)

    @property
    def empty(self) -> bool:
        return bool(self.since and self.until and self.since > self.until)

    def to_dict(self) -> dict:
        return {"since": self.since.isoformat() if self.since else None,
                "until": self.until.isoformat() if self.until else None}


@dataclass(frozen=True)
class Found:
    span: Span
    text: str                       # the query without its date phrases
    phrases: list[str] = field(default_factory=list)


def extract(query: str, today: date) -> Found:
    """The date phrases in ``query``, their combined span, and the words left to search."""
    span, phrases, text = Span(), [], query
    scan = text  # the text with phrases that are no dates (2026-02-31) masked out
    while (match := _first(scan)) is not None:
        name, found = match
        period = _period(name, found, today)
        start, end = found.span()
        if period is None:
            scan = scan[:start] + "\0" * (end - start) + scan[end:]
            continue
        span = span.narrow(_bound(found["prep"], *period))
        phrases.append(found.group(0).strip())
        text, scan = (f"{s[:start]} {s[end:]}" for s in (text, scan))
    return Found(span, " ".join(text.split()), phrases)


def bound(value: str, today: date, end: bool) -> date | None:
    """A --since or --until value: an ISO day, month or year, or a phrase; None if unreadable.

    ``end`` picks the period's last day (for --until) instead of its first.
    """
    found = extract(f"in {value.strip()}", today)
    if found.text or not found.phrases:
        return None
    return found.span.until if end else found.span.since


def _first(text: str) -> tuple[str, re.Match] | None:
    """The earliest (then longest) phrase that counts as a date."""
    best = None
    for name, pattern in _COMPILED.items():
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
    if which == "past":
        return today - timedelta(days=UNITS[unit]), today
    back = 0 if which == "this" else 1
    if unit == "week":
        start, end = _week_span(today - timedelta(weeks=back))
    elif unit == "month":
        start, end = _month_span(*_add_months(today.year, today.month, -back))
    else:
        start, end = date(today.year - back, 1, 1), date(today.year - back, 12, 31)
    return start, min(end, today) if back == 0 else end


def _weekday(m, today):
    back = (today.weekday() - WEEKDAYS[m["wd"].lower()]) % 7 or (0 if (m["which"] or "").lower() == "this" else 7)
    day = today - timedelta(days=back)
    return day, day


def _day_month(m, today):
    return _month(m, today)


def _month(m, today):
    month = MONTHS[m["mon"].lower().rstrip(".")]
    which = (m.groupdict().get("which") or "").lower()
    if m["y"]:
        year = int(m["y"])
    elif which == "this":
        year = today.year
    else:
        year = today.year if (month, int(m["d"] or 1)) <= (today.month, today.day) else today.year - 1
        if which == "last" and year == today.year and month == today.month:
            year -= 1
    if m["d"]:
        day = date(year, month, int(m["d"]))
        return day, day
    return _month_span(year, month)


def _year(m, today):
    year = int(m["y"])
    return date(year, 1, 1), date(year, 12, 31)


_PERIODS = {
    "iso_day": _iso_day, "iso_month": _iso_month, "relative_day": _relative_day, "ago": _ago,
    "last_n": _last_n, "named_period": _named_period, "weekday": _weekday,
    "day_month": _day_month, "month": _month, "year": _year,
}


def _bound(prep: str | None, start: date, end: date) -> Span:
    prep = (prep or "in").lower()
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
    return int(text) if text.isdigit() else _NUMBERS[text.lower()]


def _month_span(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, monthrange(year, month)[1])


def _week_span(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1
