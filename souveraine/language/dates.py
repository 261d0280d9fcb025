"""Date and time phrases in text, resolved against a reference time (the turn's own).

``find(text, now)`` returns every mention, in order, each with its span in the text and
the stretch of time it means, half-open: ``begins`` ≤ t < ``ends``, and a ``grain``
(minute, part of a day, day, week, weekend, month, year). ``resolve(phrase, now)`` reads one.

What the phrases mean, said on Monday 2026-08-03 at 10:00:

=====================  ======================================================
"today", "tonight"     that day (tonight: 18:00–24:00)
"Thursday", "on Thu"   the coming one, 2026-08-06 (``prefer="past"``: the last one)
"this Thursday"        this week's if it is still to come, else the coming one
"next Thursday"        Thursday of next week, 2026-08-13
"last Thursday"        the latest before today, 2026-07-30
"last week"            the week of Monday 2026-07-27 (weeks run Monday–Sunday)
"by end of month"      2026-08-31; "end of the week" is Friday
"after lunch"          14:00–17:00 that day; "tomorrow morning", "Friday at 3pm"…
"in 3 days", "2 weeks ago", "a week from Friday", "the week after next"
"23 January, 2022", "Jan 5th", "the 15th", "in March" (the coming March), "2026-12-04"
"the day before"       the day before the date mentioned last (in the text, else in
                       ``context``: the user's message); dropped when there is none
=====================  ======================================================

Numeric dates other than ISO are read day first (04/12/2026 is 4 December) unless the
first number cannot be a month. Plurals ("on Tuesdays") repeat and name no date.
The grammar is deterministic and fast; ``thorough=True`` also asks dateparser's search
(other languages, rarer forms) for what the grammar left, at dateparser's cost.
"""

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from souveraine.language.patterns import lazy

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
GRAINS = ("minute", "part", "day", "weekend", "week", "month", "year")

_PARTS = {  # part of a day: (representative time, window start, window end) in hours
    "morning": (9, 6, 12), "first thing": (9, 8, 10), "midday": (12, 11.5, 13), "noon": (12, 12, 12.02),
    "lunch": (12.5, 12, 14), "lunchtime": (12.5, 12, 14), "after lunch": (14, 13.5, 17),
    "afternoon": (15, 12, 18), "end of day": (17, 16, 18), "end of the day": (17, 16, 18),
    "eod": (17, 16, 18), "close of business": (17, 16, 18), "cob": (17, 16, 18),
    "evening": (19, 18, 22), "tonight": (20, 18, 24), "night": (21, 19, 24), "midnight": (0, 0, 0.02),
}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
            "thirty": 30, "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4}

_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)"
_MON = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
        r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
_ORD = r"(?:[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"
_NUM = (r"(?:\d+|a couple(?: of)?|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|"
        r"ten|eleven|twelve|fifteen|twenty|thirty)")
_UNIT = r"(?:minute|min|hour|hr|day|week|fortnight|month|year)s?"
_PART = (r"(?:first thing|after lunch|lunchtime|lunch|midday|morning|afternoon|evening|night|end of (?:the )?day|"
         r"eod|close of business|cob)")
_CLOCK = r"(?:(?:[01]?\d|2[0-3])[:h][0-5]\d(?:\s?[ap]\.?m\.?)?|(?:1[0-2]|0?[1-9])\s?[ap]\.?m\.?|noon|midnight)"
_EDGE_L = r"(?<![\w-])"
_EDGE_R = r"(?![\w-])"


@dataclass(frozen=True)
class Mention:
    """One date or time phrase: where it is in the text and the time it means."""

    text: str           # the phrase as written
    start: int          # offset in the text
    end: int
    begins: datetime    # first moment meant (naive, in the reference time's clock)
    ends: datetime      # the moment just after (half-open)
    grain: str          # minute | part | day | weekend | week | month | year

    @property
    def day(self) -> date:
        """The (first) day meant: the due day of "by Thursday", the Monday of "next week"."""
        return self.begins.date()

    @property
    def timed(self) -> bool:
        """Does it name a time of day, not just a day or longer?"""
        return self.grain in ("minute", "part")

    def to_dict(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end, "begins": self.begins.isoformat(),
                "ends": self.ends.isoformat(), "grain": self.grain, "day": self.day.isoformat()}


def find(text: str, now: datetime, *, prefer: str = "future", context: str | None = None,
         thorough: bool = False) -> list[Mention]:
    """Every date or time phrase in ``text``, resolved against ``now``; see the module's docstring.

    ``prefer`` ("future" or "past") settles a bare weekday or month; ``context`` is other text
    (the message being answered) whose dates anchor "the day before" and the like.
    """
    if prefer not in ("future", "past"):
        raise ValueError(f"prefer must be 'future' or 'past', not {prefer!r}")
    now = now.replace(tzinfo=None, second=0, microsecond=0)
    low = _lower(text)
    found = _scan(low, text, now, prefer)
    found = _anchored(found, low, text, now, prefer, context, hours=False)
    found = _with_times(found, low, text, now, prefer)
    found = _anchored(found, low, text, now, prefer, context, hours=True)
    if thorough:
        found = _thorough(found, text, now, prefer)
    return found


def resolve(phrase: str, now: datetime, *, prefer: str = "future") -> Mention | None:
    """The one phrase read as a date, or None when it names none."""
    found = find(phrase, now, prefer=prefer)
    return found[0] if found else None


def first_future(text: str, now: datetime, context: str | None = None) -> Mention | None:
    """The first mention whose time is still to come (a promise's due time), or None."""
    now = now.replace(tzinfo=None, second=0, microsecond=0)
    for mention in find(text, now, context=context):
        if mention.ends > now:
            return mention
    return None


# -- the scan --------------------------------------------------------------------------

def _lower(text: str) -> str:
    """Lower case of the same length, so offsets hold; curly apostrophes straightened."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text).replace("’", "'")


def _rules():
    return [
        (rf"(?:the )?day after tomorrow", _day_after_tomorrow),
        (rf"(?:the )?day before yesterday", _day_before_yesterday),
        (rf"(?:(?:on|this|next|last|coming|this coming|past|by|until|till|before|after) )?{_WD}\.?"
         rf"(?:,? (?:the )?{_ORD}(?: of)?(?: {_MON}\.?)?(?:,? {_YEAR})?| (?:of )?(?:next|this) week)?(?:'s)?", _weekday),
        (rf"(?:the )?{_ORD} (?:of )?{_MON}\.?(?:,? {_YEAR})?|{_MON}\.? (?:the )?{_ORD}(?:,? {_YEAR})?"
         rf"|{_MON}\.? {_YEAR}", _day_month),
        (rf"\d{{4}}-\d\d-\d\d(?:[t ](?:[01]\d|2[0-3]):[0-5]\d)?", _iso),
        (rf"\d{{1,2}}[/.]\d{{1,2}}[/.](?:\d{{4}}|\d\d)", _numeric),
        (r"(?:the )?(?:end|close) of (?:the |this |next )?(?:week|month|year)|(?:week|month|year)[- ]end"
         r"|(?:the )?(?:start|beginning) of (?:the |this |next )?(?:week|month|year)", _end_of),
        (r"(?:the )?(?:end|start|beginning|middle) of (?:" + _MON + r")", _month_part),
        (rf"(?:(?:early|mid|late)[- ])(?:{_MON}|next week|this week|next month|this month)", _early_late),
        (r"(?:the )?(?:week|month|year) after next", _after_next),
        (r"(?:this|next|last|the coming|the past|the following|the previous|coming|past) "
         r"(?:week|weekend|month|year)|(?:over |this |the )?weekend", _this_next_last),
        (r"later (?:this|next) (?:week|month)|later today", _later),
        (rf"(?:in|within|after) (?:the next )?{_NUM} {_UNIT}|{_NUM} {_UNIT} (?:from (?:now|today|tomorrow)|today|tomorrow)"
         r"|in a fortnight|within the hour|in an hour", _in),
        (rf"{_NUM} {_UNIT} ago", _ago),
        (rf"(?:in |by |since |until |from |before |after |during )?{_MON}(?: {_YEAR})?", _month),
        (rf"(?:on |by )?the {_ORD}(?! (?:of )?{_MON})(?= |[.,;!?]|$)", _ordinal),
        (r"today|tonight|this (?:morning|afternoon|evening)|tomorrow|tmrw|yesterday|last night", _simple),
        (r"(?:on )?(?:christmas(?: eve| day)?|new year's (?:eve|day)|boxing day|valentine's day|halloween)", _holiday),
    ]


@lru_cache(maxsize=1)
def _compiled():
    return [(lazy(_EDGE_L + f"(?:{pattern})" + _EDGE_R), handler) for pattern, handler in _rules()]


_TIME = lazy(
    _EDGE_L + rf"(?:(?:at|around|about|by|before|after|from|until|till|@) )?(?:{_CLOCK})(?:{_EDGE_R})"
    rf"|{_EDGE_L}at (?:[01]?\d|2[0-3])(?![\w:.%/-])"
    rf"|{_EDGE_L}(?:(?:in|by|before|after|during|around|at|over|first thing in) )?(?:the )?{_PART}{_EDGE_R}")


def _scan(low: str, text: str, now: datetime, prefer: str) -> list[Mention]:
    candidates = []
    for order, (pattern, handler) in enumerate(_compiled()):
        for match in pattern.finditer(low):
            candidates.append((match.start(), -(match.end() - match.start()), order, match, handler))
    candidates.sort(key=lambda c: c[:3])
    found, taken_until = [], -1
    for start, _, _, match, handler in candidates:
        if start < taken_until:
            continue
        value = handler(match[0], now, prefer, text[match.start():match.end()])
        if value is None:
            continue
        begins, ends, grain = value
        end = match.end()
        last = re.search(r"([a-z]+)\.$", low[match.start():end])
        if last and (len(last[1]) >= 5 or last[1] in MONTHS or last[1] in WEEKDAYS):
            end -= 1   # a sentence's full stop, not an abbreviation's
        found.append(Mention(text[match.start():end], match.start(), end, begins, ends, grain))
        taken_until = end
    return found


def _span(day: date, days: int = 1) -> tuple[datetime, datetime]:
    begins = datetime.combine(day, time())
    return begins, begins + timedelta(days=days)


def _day(day: date, grain: str = "day", days: int = 1):
    return (*_span(day, days), grain)


def _strip_lead(phrase: str) -> tuple[str, str]:
    match = re.match(r"(on|this coming|this|next|last|coming|past|by|until|till|before|after|in|since|from|"
                     r"during) ", phrase)
    return (match[1], phrase[match.end():]) if match else ("", phrase)


def _weekday_index(word: str) -> int | None:
    word = word.rstrip(".")
    for i, name in enumerate(WEEKDAYS):
        if name.startswith(word[:3]) and (word == name or len(word) <= 5 and (name.startswith(word) or word == "weds")):
            return i
    return None


def _weekday(phrase: str, now: datetime, prefer: str, written: str):
    lead, rest = _strip_lead(phrase)
    rest = rest.removesuffix("'s")
    week = re.search(r" (?:of )?(next|this) week$", rest)          # "Weds next week" is "next Weds"
    if week:
        lead, rest = lead if week[1] == "this" else "next", rest[:week.start()]
    word = re.match(r"[a-z]+", rest)[0]
    plain = word in ("tues", "weds", "thur", "thurs")               # no everyday word: lower case will do
    if len(word) < 6 and not lead and not re.search(r"\d", rest) and not plain:
        return None   # "sat", "sun", "wed", "mar" without "on"/"next"… are everyday words
    if len(word) < 6 and not plain and not written[len(phrase) - len(rest):][:1].isupper():
        return None
    dated = re.search(rf"({_ORD})(?: of)?(?: ({_MON})\.?)?(?:,? ({_YEAR}))?$", rest)
    if dated and dated[1][0].isdigit():
        return _dated(dated, now, prefer)
    index = _weekday_index(word)
    if index is None:
        return None
    today = now.date()
    ahead = (index - today.weekday()) % 7
    if lead == "next":
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)
        return _day(monday + timedelta(days=index))
    if lead in ("last", "past") or (prefer == "past" and lead not in ("this", "coming", "this coming", "by", "until",
                                                                        "till", "before")):
        back = (today.weekday() - index) % 7 or 7
        return _day(today - timedelta(days=back))
    if lead == "this":
        return _day(today + timedelta(days=ahead))
    return _day(today + timedelta(days=ahead or 7))


def _dated(match, now: datetime, prefer: str):
    day = int(re.match(r"\d+", match[1])[0])
    month = _month_index(match[2]) if match[2] else now.month
    year = int(match[3]) if match[3] else None
    return _calendar(day, month, year, now, prefer, month_given=bool(match[2]))


def _month_index(word: str) -> int:
    word = word.rstrip(".")
    return next(i + 1 for i, name in enumerate(MONTHS) if name.startswith(word[:3]))


def _calendar(day: int, month: int, year: int | None, now: datetime, prefer: str, month_given: bool = True):
    candidates = [year] if year else [now.year, now.year + (1 if prefer == "future" else -1)]
    for y in candidates:
        try:
            value = date(y, month, day)
        except ValueError:
            if not month_given and day <= 31:
                nxt = month % 12 + 1
                return _calendar(day, nxt, y + (month == 12), now, prefer, month_given=False) if prefer == "future" \
                    else None
            continue
        if year or (value >= now.date() if prefer == "future" else value <= now.date()):
            return _day(value)
        if not month_given:
            nxt = (month % 12) + 1 if prefer == "future" else (month - 2) % 12 + 1
            ny = now.year + (1 if prefer == "future" and month == 12 else -1 if prefer == "past" and month == 1 else 0)
            return _calendar(day, nxt, ny, now, prefer, month_given=False)
    return None


def _day_month(phrase: str, now: datetime, prefer: str, written: str):
    phrase = re.sub(r"^the ", "", phrase)
    numbers = re.findall(r"\d+", phrase)
    month_word = re.search(_MON, phrase)[0]
    if month_word == "may" and not numbers:
        return None
    if len(numbers) == 1 and len(numbers[0]) == 4:   # "March 2027"
        month, year = _month_index(month_word), int(numbers[0])
        begins = datetime(year, month, 1)
        return begins, _next_month(begins), "month"
    day = int(numbers[0])
    year = int(numbers[1]) if len(numbers) > 1 else None
    if month_word == "mar" and not written[phrase.find("mar") if "mar" in phrase else 0:][:1].isupper() and not year:
        return None
    return _calendar(day, _month_index(month_word), year, now, prefer)


def _iso(phrase: str, now: datetime, prefer: str, written: str):
    try:
        day = date.fromisoformat(phrase[:10])
    except ValueError:
        return None
    if len(phrase) > 10:
        clock = datetime.combine(day, time(int(phrase[11:13]), int(phrase[14:16])))
        return clock, clock + timedelta(minutes=1), "minute"
    return _day(day)


def _numeric(phrase: str, now: datetime, prefer: str, written: str):
    a, b, y = (int(n) for n in re.split(r"[/.]", phrase))
    y = y + 2000 if y < 100 else y
    day, month = (b, a) if a <= 12 < b else (a, b)
    try:
        return _day(date(y, month, day))
    except ValueError:
        return None


def _next_month(moment: datetime) -> datetime:
    return moment.replace(year=moment.year + (moment.month == 12), month=moment.month % 12 + 1, day=1)


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _end_of(phrase: str, now: datetime, prefer: str, written: str):
    today = now.date()
    start = re.search(r"start|beginning", phrase) is not None
    shift = 1 if "next" in phrase else 0
    if "week" in phrase:
        monday = _week_start(today) + timedelta(days=7 * shift)
        return _day(monday) if start else _day(monday + timedelta(days=4))
    if "month" in phrase:
        first = datetime(today.year, today.month, 1)
        for _ in range(shift):
            first = _next_month(first)
        return _day(first.date()) if start else _day((_next_month(first) - timedelta(days=1)).date())
    year = today.year + shift
    return _day(date(year, 1, 1)) if start else _day(date(year, 12, 31))


def _month_part(phrase: str, now: datetime, prefer: str, written: str):
    month = _month_index(re.search(_MON + "$", phrase)[0])
    first = _month_start(month, now, prefer)
    last = _next_month(first) - timedelta(days=1)
    if "end" in phrase:
        return _day(last.date())
    if "middle" in phrase:
        return _day(first.date() + timedelta(days=14))
    return _day(first.date())


def _month_start(month: int, now: datetime, prefer: str) -> datetime:
    year = now.year
    if prefer == "future" and month < now.month:
        year += 1
    elif prefer == "past" and month > now.month:
        year -= 1
    return datetime(year, month, 1)


def _early_late(phrase: str, now: datetime, prefer: str, written: str):
    which, rest = re.match(r"(early|mid|late)[- ](.+)", phrase).groups()
    if "week" in rest:
        monday = _week_start(now.date()) + timedelta(days=7 if "next" in rest else 0)
        offset, days = {"early": (0, 2), "mid": (2, 2), "late": (3, 2)}[which]
        return _day(monday + timedelta(days=offset), "week", days)
    if "month" in rest:
        first = datetime(now.year, now.month, 1)
        first = _next_month(first) if "next" in rest else first
    else:
        first = _month_start(_month_index(rest), now, prefer)
    offset = {"early": 0, "mid": 10, "late": 20}[which]
    begins = first + timedelta(days=offset)
    ends = first + timedelta(days=offset + 10) if which != "late" else _next_month(first)
    return begins, ends, "month"


def _after_next(phrase: str, now: datetime, prefer: str, written: str):
    if "week" in phrase:
        return _day(_week_start(now.date()) + timedelta(days=14), "week", 7)
    if "month" in phrase:
        begins = _next_month(_next_month(datetime(now.year, now.month, 1)))
        return begins, _next_month(begins), "month"
    return datetime(now.year + 2, 1, 1), datetime(now.year + 3, 1, 1), "year"


def _this_next_last(phrase: str, now: datetime, prefer: str, written: str):
    today = now.date()
    shift = 1 if re.search(r"next|coming|following", phrase) else -1 if re.search(r"last|past|previous", phrase) else 0
    if phrase.endswith("weekend"):
        saturday = _week_start(today) + timedelta(days=5 + 7 * shift)
        if shift == 0 and today.weekday() == 6:
            saturday = today - timedelta(days=1)
        return _day(saturday, "weekend", 2)
    if phrase.endswith("week"):
        return _day(_week_start(today) + timedelta(days=7 * shift), "week", 7)
    if phrase.endswith("month"):
        begins = datetime(today.year, today.month, 1)
        if shift > 0:
            begins = _next_month(begins)
        elif shift < 0:
            begins = (begins - timedelta(days=1)).replace(day=1)
        return begins, _next_month(begins), "month"
    return datetime(today.year + shift, 1, 1), datetime(today.year + shift + 1, 1, 1), "year"


def _later(phrase: str, now: datetime, prefer: str, written: str):
    today = now.date()
    if phrase.endswith("today"):
        return now, datetime.combine(today + timedelta(days=1), time()), "part"
    if "next week" in phrase:
        return _day(_week_start(today) + timedelta(days=9), "week", 5)
    if "this week" in phrase:
        return _day(today + timedelta(days=1), "week", max(1, 6 - today.weekday()))
    last = (_next_month(datetime(today.year, today.month, 1)))
    begins = datetime.combine(today + timedelta(days=1), time())
    return begins, max(last, begins + timedelta(days=1)), "month"


def _amount(words: str) -> int | None:
    words = words.strip()
    if words.isdigit():
        return int(words)
    return _NUMBERS.get(words)


def _delta(count: int, unit: str) -> tuple[timedelta | int, str]:
    unit = unit.rstrip("s")
    if unit in ("minute", "min"):
        return timedelta(minutes=count), "minute"
    if unit in ("hour", "hr"):
        return timedelta(hours=count), "minute"
    if unit == "day":
        return timedelta(days=count), "day"
    if unit == "week":
        return timedelta(weeks=count), "day"
    if unit == "fortnight":
        return timedelta(weeks=2 * count), "day"
    if unit == "month":
        return count, "month"
    return 12 * count, "month"


def _shift_months(moment: datetime, months: int) -> datetime:
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    for day in (moment.day, 30, 29, 28):
        try:
            return moment.replace(year=year, month=month, day=day)
        except ValueError:
            continue
    return moment


def _in(phrase: str, now: datetime, prefer: str, written: str):
    if phrase in ("within the hour", "in an hour"):
        return now + timedelta(hours=1), now + timedelta(hours=1, minutes=1), "minute"
    if phrase == "in a fortnight":
        return _day(now.date() + timedelta(days=14))
    match = re.search(rf"({_NUM}) ({_UNIT})", phrase)
    count = _amount(match[1])
    if count is None:
        return None
    base = now
    if phrase.endswith("tomorrow"):
        base = now + timedelta(days=1)
    step, grain = _delta(count, match[2])
    moment = base + step if isinstance(step, timedelta) else _shift_months(base, step)
    if grain == "minute":
        return moment, moment + timedelta(minutes=1), "minute"
    return _day(moment.date())


def _ago(phrase: str, now: datetime, prefer: str, written: str):
    match = re.match(rf"({_NUM}) ({_UNIT})", phrase)
    count = _amount(match[1])
    if count is None:
        return None
    step, grain = _delta(count, match[2])
    moment = now - step if isinstance(step, timedelta) else _shift_months(now, -step)
    if grain == "minute":
        return moment, moment + timedelta(minutes=1), "minute"
    return _day(moment.date())


def _month(phrase: str, now: datetime, prefer: str, written: str):
    lead, rest = _strip_lead(phrase)
    word = re.match(r"[a-z]+", rest)[0]
    year = re.search(_YEAR, rest)
    if not year and (word in ("may", "march", "mar", "sept", "sep") or len(word) <= 4) and not lead:
        return None   # "may", "march" are everyday words; "in May" is a month
    if not year and not written[len(phrase) - len(rest):][:1].isupper():
        return None
    month = _month_index(word)
    if year:
        begins = datetime(int(year[0]), month, 1)
    else:
        begins = _month_start(month, now, "past" if lead == "since" else prefer)
        if prefer == "future" and lead != "since" and begins < datetime(now.year, now.month, 1):
            begins = begins.replace(year=begins.year + 1)
    return begins, _next_month(begins), "month"


def _ordinal(phrase: str, now: datetime, prefer: str, written: str):
    day = int(re.search(r"\d+", phrase)[0])
    if not re.search(r"\d(?:st|nd|rd|th)", phrase) or not 1 <= day <= 31:
        return None
    return _calendar(day, now.month, None, now, prefer, month_given=False)


def _simple(phrase: str, now: datetime, prefer: str, written: str):
    today = now.date()
    if phrase in ("today",):
        return _day(today)
    if phrase in ("tomorrow", "tmrw"):
        return _day(today + timedelta(days=1))
    if phrase == "yesterday":
        return _day(today - timedelta(days=1))
    if phrase == "last night":
        return _part(today - timedelta(days=1), "night")
    part = phrase.replace("this ", "")
    return _part(today, part)


_HOLIDAYS = {"christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25), "boxing day": (12, 26),
             "new year's eve": (12, 31), "new year's day": (1, 1), "valentine's day": (2, 14), "halloween": (10, 31)}


def _holiday(phrase: str, now: datetime, prefer: str, written: str):
    month, day = _HOLIDAYS[phrase.removeprefix("on ")]
    return _calendar(day, month, None, now, prefer)


def _day_after_tomorrow(phrase, now, prefer, written):
    return _day(now.date() + timedelta(days=2))


def _day_before_yesterday(phrase, now, prefer, written):
    return _day(now.date() - timedelta(days=2))


def _part(day: date, part: str):
    at, start, stop = _PARTS[part]
    base = datetime.combine(day, time())
    return base + timedelta(hours=at), base + timedelta(hours=stop), "part"


# -- times of day, joined to the day they belong to ------------------------------------

def _with_times(found: list[Mention], low: str, text: str, now: datetime, prefer: str = "future") -> list[Mention]:
    times = [m for m in _TIME.finditer(low)
             if not any(f.start <= m.start() < f.end or m.start() <= f.start < m.end() for f in found)]
    if not times:
        return found
    out = list(found)
    for match in times:
        clock = _clock(match[0])
        if clock is None:
            continue
        near = _adjacent(out, match, low)
        if near is not None:
            mention = out[near]
            if mention.grain not in ("day", "part"):
                continue
            begins, ends, grain = _at(mention.begins.date(), clock)
            start, end = min(mention.start, match.start()), max(mention.end, match.end())
            out[near] = Mention(text[start:end], start, end, begins, ends, grain)
        else:
            day = now.date()
            begins, ends, grain = _at(day, clock)
            # "at 9" said at 21:10, or "in the morning" said in the evening: the next one
            if ends <= now and (grain == "minute" or grain == "part" and prefer == "future"):
                begins, ends, grain = _at(day + timedelta(days=1), clock)
            out.append(Mention(text[match.start():match.end()], match.start(), match.end(), begins, ends, grain))
    return sorted(out, key=lambda m: m.start)


def _adjacent(found: list[Mention], match, low: str) -> int | None:
    for i, mention in enumerate(found):
        between = low[mention.end:match.start()] if mention.end <= match.start() else low[match.end():mention.start]
        if mention.end <= match.start() or match.end() <= mention.start:
            if re.fullmatch(r"[ ,]*(?:at|around|by|on|from)?[ ,]*", between) and len(between) <= 8:
                return i
    return None


def _clock(phrase: str):
    if phrase.endswith("after lunch"):
        return "after lunch"
    phrase = re.sub(r"^(?:at|around|about|by|before|after|from|until|till|@|in|during|over|first thing in) ", "",
                    phrase).removeprefix("the ")
    if phrase in _PARTS:
        return phrase
    if phrase.startswith("end of"):
        return "end of day"
    match = re.fullmatch(r"(\d{1,2})(?:[:h](\d\d))?\s?([ap])?\.?(?:m\.?)?", phrase)
    if not match:
        return None
    hour, minute = int(match[1]), int(match[2] or 0)
    if match[3] == "p" and hour < 12:
        hour += 12
    elif match[3] == "a" and hour == 12:
        hour = 0
    elif not match[3] and not match[2] and 1 <= hour <= 7:
        hour += 12   # "at 3": an afternoon, in everyday speech
    return time(hour, minute) if hour < 24 else None


def _at(day: date, clock):
    if isinstance(clock, str):
        return _part(day, clock)
    begins = datetime.combine(day, clock)
    return begins, begins + timedelta(minutes=1), "minute"


# -- "the day before", "the morning of": anchored on another date ----------------------

_ANCHORED = lazy(
    _EDGE_L + rf"(?:the )?(?:({_NUM}) )?(day|night|evening|morning|week|hour)s? (before|after|of)(?: that| it| then)?"
    + _EDGE_R)


def _anchored(found, low, text, now, prefer, context, hours: bool) -> list[Mention]:
    out = list(found)
    for match in _ANCHORED.finditer(low):
        if any(m.start <= match.start() < m.end for m in out) or (match[2] == "hour") != hours:
            continue
        after = next((m for m in out if m.start > match.start() and m.end > match.end()
                      and not low[match.end():max(m.start, match.end())].strip(" ")), None)
        if after is not None:
            anchor, out = after, [m for m in out if m is not after]
            start, end = match.start(), after.end
        else:
            if match[3] == "of" and not re.search(r"that|it|then", match[0]) and not re.match(r"\s*(?:[.!;]|$)",
                                                                                            low[match.end():]):
                continue
            before = [m for m in out if m.end <= match.start()]
            anchor = before[-1] if before else _context_anchor(context, now, prefer)
            start, end = match.start(), match.end()
        if anchor is None:
            continue
        value = _relative_to(anchor, match[1], match[2], match[3])
        if value:
            out.append(Mention(text[start:end], start, end, *value))
    return sorted(out, key=lambda m: m.start)


def _context_anchor(context, now, prefer):
    if not context:
        return None
    found = find(context, now, prefer=prefer)
    dated = [m for m in found if m.grain in ("day", "minute", "part")]
    return dated[-1] if dated else None


def _relative_to(anchor: Mention, count: str | None, unit: str, way: str):
    n = _amount(count) if count else 1
    day = anchor.begins.date()
    if way == "of":
        return _part(day, unit) if unit in _PARTS else _day(day)
    sign = -1 if way == "before" else 1
    if unit == "hour":
        moment = anchor.begins + sign * timedelta(hours=n)
        return moment, moment + timedelta(minutes=1), "minute"
    step = timedelta(days=7 * n if unit == "week" else n)
    target = day + sign * step
    return _part(target, unit) if unit in _PARTS else _day(target)


# -- dateparser, for what the grammar does not know ------------------------------------

def _thorough(found: list[Mention], text: str, now: datetime, prefer: str) -> list[Mention]:
    from dateparser.search import search_dates

    settings = {"RELATIVE_BASE": now, "PREFER_DATES_FROM": prefer, "RETURN_AS_TIMEZONE_AWARE": False}
    hits = search_dates(text, settings=settings) or []
    cursor, out = 0, list(found)
    for phrase, moment in hits:
        at = text.find(phrase, cursor)
        if at < 0:
            continue
        cursor = at + len(phrase)
        if any(m.start < cursor and at < m.end for m in out) or not re.search(r"\d|[^\W\d_]{4,}", phrase):
            continue
        if not re.search(r"\d", phrase) and len(phrase.split()) < 2:
            continue   # a lone word ("now", "sat") is rarely a date
        begins, ends, grain = _day(moment.date()) if moment.time() == time() else (moment, moment + timedelta(minutes=1), "minute")
        out.append(Mention(phrase, at, cursor, begins, ends, grain))
    return sorted(out, key=lambda m: m.start)


def describe(mention: Mention) -> str:
    """The absolute date in words a memory can keep: "Friday 2026-12-04", "the week of 2026-07-27"."""
    day = mention.begins
    if mention.grain == "minute":
        return f"{day:%A %Y-%m-%d} at {day:%H:%M}"
    if mention.grain == "part":
        return f"{day:%A %Y-%m-%d} ({_part_name(mention)})"
    if mention.grain == "week":
        return f"the week of {day:%Y-%m-%d}"
    if mention.grain == "weekend":
        return f"the weekend of {day:%Y-%m-%d}"
    if mention.grain == "month":
        return f"{day:%B %Y}" if day.day == 1 and (mention.ends - mention.begins).days >= 28 else \
            f"{day:%Y-%m-%d} to {(mention.ends - timedelta(days=1)):%Y-%m-%d}"
    if mention.grain == "year":
        return f"{day:%Y}"
    return f"{day:%A %Y-%m-%d}"


def _part_name(mention: Mention) -> str:
    hours = mention.begins.hour + mention.begins.minute / 60
    for name, (at, _, _) in _PARTS.items():
        if at == hours:
            return name
    return f"{mention.begins:%H:%M}"


__all__ = ["Mention", "find", "resolve", "first_future", "describe"]
