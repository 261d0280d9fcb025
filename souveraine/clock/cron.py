"""Cron expressions that mean the same under system cron and under APScheduler.

Two traps, both handled here. APScheduler 3 numbers weekdays from Monday = 0, cron from
Sunday = 0 (and 7): numeric weekdays are translated to names. And when both day-of-month
and day-of-week are restricted, cron fires when EITHER matches, APScheduler when BOTH do:
such an expression becomes an OrTrigger of two triggers.
"""

import re

from souveraine.errors import ConfigError

FIELDS = ("minute", "hour", "day", "month", "day_of_week")
_RANGES = {"minute": (0, 59), "hour": (0, 23), "day": (1, 31), "month": (1, 12), "day_of_week": (0, 7)}
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
           "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
_PART = re.compile(r"^(\*|[0-9a-z]+(?:-[0-9a-z]+)?)(?:/(\d+))?$")


def split(expression: str, where: str = "cron expression") -> dict[str, str]:
    """The five fields of ``expression``; ConfigError naming what is wrong."""
    text = _MACROS.get(expression.strip().lower(), expression.strip().lower())
    parts = text.split()
    if len(parts) != 5:
        raise ConfigError(f"{where} '{expression}' must have five fields: minute hour day month weekday")
    fields = dict(zip(FIELDS, parts))
    for name, value in fields.items():
        for item in value.split(","):
            _check(name, item, expression, where)
    return fields


def values(name: str, field: str) -> set[int]:
    """Every number a field matches (weekdays 0–6, Sunday 0)."""
    low, high = _RANGES[name]
    found: set[int] = set()
    for item in field.split(","):
        match = _PART.match(item)
        span, step = match[1], int(match[2] or 1)
        if span == "*":
            start, end = low, (6 if name == "day_of_week" else high)
        elif "-" in span:
            start, end = (_number(name, x) for x in span.split("-"))
        else:
            start = end = _number(name, span)
            if match[2]:
                end = 6 if name == "day_of_week" else high
        found.update(range(start, end + 1, step))
    if name == "day_of_week" and 7 in found:
        found = (found - {7}) | {0}
    return found


def matches(expression: str, moment) -> bool:
    """Does cron fire at ``moment`` (a datetime, seconds ignored)? The reference semantics."""
    f = split(expression)
    minute, hour = moment.minute in values("minute", f["minute"]), moment.hour in values("hour", f["hour"])
    if not (minute and hour and moment.month in values("month", f["month"])):
        return False
    dom = moment.day in values("day", f["day"])
    dow = (moment.isoweekday() % 7) in values("day_of_week", f["day_of_week"])
    if f["day"] != "*" and f["day_of_week"] != "*":
        return dom or dow
    return dom and dow


def trigger(expression: str, timezone=None, where: str = "cron expression"):
    """An APScheduler trigger that fires exactly when cron would."""
    from apscheduler.triggers.combining import OrTrigger
    from apscheduler.triggers.cron import CronTrigger

    f = split(expression, where)
    weekdays = ",".join(_DAYS[d] for d in sorted(values("day_of_week", f["day_of_week"])))
    common = {"minute": f["minute"], "hour": f["hour"], "month": f["month"], "second": 0, "timezone": timezone}
    if f["day"] != "*" and f["day_of_week"] != "*":
        return OrTrigger([CronTrigger(day=f["day"], **common), CronTrigger(day_of_week=weekdays, **common)])
    return CronTrigger(day=f["day"], day_of_week=weekdays if f["day_of_week"] != "*" else "*", **common)


def _check(name: str, item: str, expression: str, where: str) -> None:
    match = _PART.match(item)
    if not match:
        raise ConfigError(f"{where} '{expression}': '{item}' is not a valid {name.replace('_', ' ')} field")
    low, high = _RANGES[name]
    for token in match[1].split("-") if match[1] != "*" else ():
        number = _number(name, token, expression, where)
        if not low <= number <= high:
            raise ConfigError(f"{where} '{expression}': {name.replace('_', ' ')} {number} is outside {low}–{high}")
    if match[2] is not None and int(match[2]) == 0:
        raise ConfigError(f"{where} '{expression}': a step of 0 never fires")


def _number(name: str, token: str, expression: str = "", where: str = "") -> int:
    if token.isdigit():
        return int(token)
    names = _DAYS[:7] if name == "day_of_week" else _MONTHS if name == "month" else ()
    if token[:3] in names:
        return names.index(token[:3]) + (1 if name == "month" else 0)
    raise ConfigError(f"{where} '{expression}': '{token}' is not a number or a name for the {name.replace('_', ' ')}")
