from datetime import datetime, timedelta, timezone

import pytest

from souveraine.clock import cron
from souveraine.errors import ConfigError

UTC = timezone.utc


def fires(expression, start, count):
    trigger = cron.trigger(expression, timezone=UTC)
    out, previous, now = [], None, start
    for _ in range(count):
        moment = trigger.get_next_fire_time(previous, now)
        out.append(moment)
        previous, now = moment, moment + timedelta(seconds=1)
    return out


def reference(expression, start, count):
    """Every minute from start that cron itself would fire on."""
    out, moment = [], start
    while len(out) < count:
        if cron.matches(expression, moment):
            out.append(moment)
        moment += timedelta(minutes=1)
    return out


@pytest.mark.parametrize("expression", [
    "0 9 * * 1", "0 3 1 * *", "0 4 1 1,4,7,10 *", "*/30 * * * *", "15 10 * * 1-5",
    "0 0 * * 0", "0 0 * * 7", "0 0 * * */2", "0 12 13 * 5", "30 6 * * sun,wed", "@weekly",
])
def test_scheduler_fires_exactly_when_cron_would(expression):
    start = datetime(2026, 11, 29, 0, 0, tzinfo=UTC)
    assert fires(expression, start, 6) == reference(expression, start, 6)


def test_monday_is_monday_in_both():
    start = datetime(2026, 11, 25, tzinfo=UTC)  # a Wednesday
    first = fires("0 9 * * 1", start, 1)[0]
    assert first == datetime(2026, 11, 30, 9, 0, tzinfo=UTC) and first.strftime("%A") == "Monday"


def test_day_of_month_or_weekday_as_in_cron():
    start = datetime(2026, 11, 1, tzinfo=UTC)
    days = [f.day for f in fires("0 12 13 * 5", start, 4)]
    assert days == [6, 13, 20, 27]  # Fridays, and the 13th (also a Friday here)
    days = [f.strftime("%a %d") for f in fires("0 12 13 * 1", start, 4)]
    assert days == ["Mon 02", "Mon 09", "Fri 13", "Mon 16"]


@pytest.mark.parametrize("bad, words", [
    ("0 9 * *", "must have five fields"),
    ("61 * * * *", "minute 61 is outside 0–59"),
    ("0 9 * * 8", "day of week 8 is outside 0–7"),
    ("0 9 * * funday", "is not a number or a name"),
    ("*/0 * * * *", "a step of 0 never fires"),
    ("0 9 ? * 1", "is not a valid day field"),
])
def test_bad_expressions_are_named(bad, words):
    with pytest.raises(ConfigError, match=words):
        cron.split(bad)
