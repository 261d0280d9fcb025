from datetime import date, datetime

import pytest

from souveraine.language import dates

MONDAY = datetime(2026, 8, 3, 10, 0)   # Monday 3 August 2026, 10:00


def one(text, now=MONDAY, **kw):
    found = dates.find(text, now, **kw)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("phrase, day", [
    ("today", date(2026, 8, 3)),
    ("tomorrow", date(2026, 8, 4)),
    ("the day after tomorrow", date(2026, 8, 5)),
    ("yesterday", date(2026, 8, 2)),
    ("on Thursday", date(2026, 8, 6)),
    ("this Thursday", date(2026, 8, 6)),
    ("next Thursday", date(2026, 8, 13)),
    ("last Thursday", date(2026, 7, 30)),
    ("on Monday", date(2026, 8, 10)),
    ("in 3 days", date(2026, 8, 6)),
    ("in a couple of days", date(2026, 8, 5)),
    ("two weeks ago", date(2026, 7, 20)),
    ("a week from tomorrow", date(2026, 8, 11)),
    ("in a fortnight", date(2026, 8, 17)),
    ("by end of month", date(2026, 8, 31)),
    ("by the end of the week", date(2026, 8, 7)),
    ("end of next month", date(2026, 9, 30)),
    ("on 23 January, 2022", date(2022, 1, 23)),
    ("on the 23rd of January 2022", date(2022, 1, 23)),
    ("January 23rd", date(2027, 1, 23)),
    ("Jan 5th", date(2027, 1, 5)),
    ("Aug 20", date(2026, 8, 20)),
    ("the 15th", date(2026, 8, 15)),
    ("the 1st", date(2026, 9, 1)),
    ("2026-12-04", date(2026, 12, 4)),
    ("04/12/2026", date(2026, 12, 4)),
    ("12/25/2026", date(2026, 12, 25)),
    ("Friday 4 December", date(2026, 12, 4)),
    ("on Fri 4 Dec", date(2026, 12, 4)),
    ("on weds", date(2026, 8, 5)),
    ("by weds next week", date(2026, 8, 12)),
    ("Friday next week", date(2026, 8, 14)),
    ("a week today", date(2026, 8, 10)),
])
def test_days(phrase, day):
    assert one(f"It is {phrase}.").day == day


def test_last_week_is_the_week_of_the_monday_before():
    mention = one("We spoke last week.")
    assert mention.grain == "week" and mention.day == date(2026, 7, 27)
    assert mention.ends == datetime(2026, 8, 3)


def test_next_week_this_weekend_and_months():
    assert one("next week").day == date(2026, 8, 10)
    weekend = one("this weekend")
    assert (weekend.day, weekend.grain, weekend.ends.date()) == (date(2026, 8, 8), "weekend", date(2026, 8, 10))
    march = one("in March")
    assert (march.begins, march.ends, march.grain) == (datetime(2027, 3, 1), datetime(2027, 4, 1), "month")
    assert one("since March", prefer="past").day == date(2026, 3, 1)
    assert one("next month").day == date(2026, 9, 1)


def test_times_join_their_day():
    assert one("Thursday at 3pm").begins == datetime(2026, 8, 6, 15, 0)
    assert one("tomorrow morning").begins == datetime(2026, 8, 4, 9, 0)
    assert one("at 10 tomorrow").begins == datetime(2026, 8, 4, 10, 0)
    lunch = one("I'll circle back after lunch.")
    assert (lunch.begins, lunch.ends, lunch.grain) == (datetime(2026, 8, 3, 14), datetime(2026, 8, 3, 17), "part")
    assert one("at 9:15").begins == datetime(2026, 8, 3, 9, 15) + (datetime(2026, 8, 4) - datetime(2026, 8, 3))
    assert one("tonight").begins == datetime(2026, 8, 3, 20, 0)


def test_the_day_before_is_anchored_on_the_last_date():
    found = dates.find("The dentist is on Friday; I'll remind you the day before.", MONDAY)
    assert [m.day for m in found] == [date(2026, 8, 7), date(2026, 8, 6)]
    assert one("the day before Friday at 9am").begins == datetime(2026, 8, 6, 9, 0)
    assert one("I'll remind you the day before.", context="My flight is on the 20th").day == date(2026, 8, 19)
    assert dates.find("I'll remind you the day before.", MONDAY) == []


def test_spans_point_into_the_text():
    text = "Lena arrives on Friday, and the lease ends 23 January, 2027."
    for mention in dates.find(text, MONDAY):
        assert text[mention.start:mention.end] == mention.text
    assert [m.text for m in dates.find(text, MONDAY)] == ["on Friday", "23 January, 2027"]


@pytest.mark.parametrize("text", [
    "I may come later", "We march on", "sat on the sun lounger", "on Tuesdays we swim",
    "a second opinion", "around 4 people", "version 2.1.3", "3/4 of the team",
])
def test_everyday_words_are_not_dates(text):
    assert dates.find(text, MONDAY) == []


def test_prefer_past_reads_a_bare_weekday_backwards():
    assert one("we met on Thursday", prefer="past").day == date(2026, 7, 30)


def test_first_future_skips_what_has_passed():
    assert dates.first_future("Yesterday was hard; I'll call you Friday.", MONDAY).day == date(2026, 8, 7)


def test_describe_gives_absolute_words():
    assert dates.describe(one("on Friday")) == "Friday 2026-08-07"
    assert dates.describe(one("last week")) == "the week of 2026-07-27"
    assert dates.describe(one("Thursday at 3pm")) == "Thursday 2026-08-06 at 15:00"
    assert dates.describe(one("in March")) == "March 2027"


def test_thorough_asks_dateparser_for_what_the_grammar_leaves():
    found = dates.find("A reunião fica para 5 de março de 2027.", MONDAY, thorough=True)
    assert [m.day for m in found] == [date(2027, 3, 5)]


def test_bad_preference_is_refused():
    with pytest.raises(ValueError):
        dates.find("today", MONDAY, prefer="sideways")


def test_a_part_of_the_day_already_gone_is_tomorrows_unless_the_past_is_read():
    evening = datetime(2026, 8, 3, 21, 10)
    assert one("I'll remind you in the morning.", evening).begins == datetime(2026, 8, 4, 9, 0)
    assert one("I saw her in the morning.", evening, prefer="past").day == date(2026, 8, 3)
