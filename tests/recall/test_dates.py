from datetime import date

import pytest

from souveraine.recall.dates import bound, extract

MONDAY = date(2026, 11, 30)


@pytest.mark.parametrize("query, since, until, left", [
    ("what did I say about that book in March", "2026-03-01", "2026-03-31", "what did I say about that book"),
    ("in December", "2025-12-01", "2025-12-31", ""),          # no December yet this year: last year's
    ("March 2025 trip", "2025-03-01", "2025-03-31", "trip"),
    ("budget 2026-05", "2026-05-01", "2026-05-31", "budget"),
    ("2026-05-03 dinner", "2026-05-03", "2026-05-03", "dinner"),
    ("since May", "2026-05-01", None, ""),
    ("after March 2026", "2026-04-01", None, ""),
    ("before 2026", None, "2025-12-31", ""),
    ("until 2026-02", None, "2026-02-28", ""),
    ("yesterday's dinner", "2026-11-29", "2026-11-29", "'s dinner"),
    ("dinner yesterday", "2026-11-29", "2026-11-29", "dinner"),
    ("today", "2026-11-30", "2026-11-30", ""),
    ("last week", "2026-11-23", "2026-11-29", ""),
    ("this week", "2026-11-30", "2026-11-30", ""),
    ("last month", "2026-10-01", "2026-10-31", ""),
    ("this year", "2026-01-01", "2026-11-30", ""),
    ("in the last 10 days", "2026-11-20", "2026-11-30", ""),
    ("3 days ago", "2026-11-27", "2026-11-27", ""),
    ("two weeks ago", "2026-11-16", "2026-11-22", ""),
    ("on Friday", "2026-11-27", "2026-11-27", ""),
    ("last Monday", "2026-11-23", "2026-11-23", ""),
    ("the 3rd of May", "2026-05-03", "2026-05-03", ""),
    ("from 3 May to June 2026", "2026-05-03", "2026-06-30", ""),
    ("in 2025 we met", "2025-01-01", "2025-12-31", "we met"),
    ("between August 11 and August 15 2023", "2023-08-11", "2023-08-15", ""),   # the year holds for both
    ("from 3 to 9 May", "2026-05-03", "2026-05-09", ""),
    ("between August 11 and 15, 2023", "2023-08-11", "2023-08-15", ""),
    ("during the last week of August 2023", "2023-08-25", "2023-08-31", ""),
    ("last Friday on 23 January, 2022", "2022-01-21", "2022-01-23", ""),           # counted from the day it names
    ("in the last year", "2025-11-30", "2026-11-30", ""),                          # the 365 days, not 2025
    ("the past month", "2026-10-31", "2026-11-30", ""),
    ("the week before August 3", "2026-07-27", "2026-08-02", ""),
    ("two days after 2026-05-01", "2026-05-02", "2026-05-03", ""),
    ("early March", "2026-03-01", "2026-03-10", ""),
    ("the end of June 2025", "2025-06-21", "2025-06-30", ""),
    ("last weekend", "2026-11-28", "2026-11-29", ""),
])
def test_phrases_resolve_against_today_and_leave_the_words(query, since, until, left):
    found = extract(query, MONDAY)
    assert found.span.to_dict() == {"since": since, "until": until}
    assert found.text == left


@pytest.mark.parametrize("query", ["I may go", "march on", "the 2025 budget", "monday meetings",
                                   "2026-02-31 report", "room 1234", ""])
def test_words_that_only_look_like_dates_stay_words(query):
    found = extract(query, MONDAY)
    assert found.span.to_dict() == {"since": None, "until": None}
    assert found.text == query


def test_a_month_named_without_a_year_is_the_latest_one_not_in_the_future():
    assert extract("in March", date(2026, 2, 10)).span.since == date(2025, 3, 1)
    assert extract("in February", date(2026, 2, 10)).span.since == date(2026, 2, 1)
    assert extract("on 20 February", date(2026, 2, 10)).span.since == date(2025, 2, 20)


def test_several_phrases_narrow_each_other():
    found = extract("since March until last month", MONDAY)
    assert found.span.to_dict() == {"since": "2026-03-01", "until": "2026-10-31"}
    assert extract("in March after April", MONDAY).span.empty


def test_a_reading_says_what_it_guessed():
    june, = extract("camping in June", MONDAY, "the memory's latest turn").readings
    assert june.to_dict() == {"phrase": "in June", "since": "2026-06-01", "until": "2026-06-30", "ambiguous": True,
                              "note": "no year given: the latest June up to 2026-11-30 (the memory's latest turn)"}
    week, = extract("last week", MONDAY, "--now").readings
    assert (week.note, week.ambiguous) == ("counted from 2026-11-30 (--now)", False)
    assert extract("June 2025", MONDAY).readings[0].ambiguous is False


def test_option_values_read_as_their_period_start_or_end():
    assert bound("2026-05", MONDAY, end=False) == date(2026, 5, 1)
    assert bound("2026-05", MONDAY, end=True) == date(2026, 5, 31)
    assert bound("2025", MONDAY, end=True) == date(2025, 12, 31)
    assert bound("last week", MONDAY, end=False) == date(2026, 11, 23)
    assert bound("2026-03-14", MONDAY, end=True) == date(2026, 3, 14)
    assert bound("soon", MONDAY, end=False) is None
    assert bound("May budget", MONDAY, end=False) is None
