"""A sentence distilled: who, what, when — every figure kept, every line shorter than its cap."""

from datetime import datetime

from bench import distil as distil_bench
from souveraine.language import distil

AT = datetime(2026, 11, 30, 14, 0)     # a Monday


def test_the_first_person_is_said_as_the_speaker_and_the_verb_agrees():
    assert distil.line("I prefer the window seat on long flights", at=AT) == "The user prefers the window seat on long flights."
    assert distil.line("I'm training for the marathon and my knee hurts", at=AT) == \
        "The user is training for the marathon and the user's knee hurts."
    assert distil.line("I always take the 7:15 train", role="assistant", at=AT) == "The agent always takes the 7:15 train."
    assert distil.line("Tomás and I are meeting on Mondays", at=AT) == "Tomás and the user are meeting on Mondays."
    assert distil.line("I met Inês at the market", at=AT) == "The user met Inês at the market."


def test_relative_dates_become_absolute_and_habits_stay_habits():
    assert distil.line("Tomás comes tomorrow at 10 to quote the tiles", at=AT) == \
        "Tomás comes on Tuesday 2026-12-01 at 10:00 to quote the tiles."
    assert distil.line("I'll call Inês by next Friday", at=AT) == "The user will call Inês by Friday 2026-12-11."
    assert distil.line("I had lunch with Alice today", at=AT) == "The user had lunch with Alice that day."
    assert distil.line("Zeynep lands on 3 November", at=AT) == "Zeynep lands on 3 November."
    assert distil.line("I swim every Friday morning", at=AT) == "The user swims every Friday morning."


def test_small_talk_and_hedges_go_but_a_no_that_means_no_stays():
    assert distil.line("Btw, as promised: I think Tomás is kind of keen on the job", at=AT) == "Tomás is keen on the job."
    assert distil.line("No nuts in anything for Leo", at=AT) == "No nuts in anything for Leo."
    assert distil.line("Great! Inês booked the table", at=AT) == "Inês booked the table."


def test_one_clause_is_kept_unless_another_holds_a_figure_a_name_or_a_fact():
    said = "I called Inês about the cake; she was in a hurry, so we kept it short"
    assert distil.line(said, at=AT, about="Inês") == "The user called Inês about the cake."
    kept = distil.line("Tomás arrives at 10; the train leaves at 18:45", at=AT, about="Tomás")
    assert "10" in kept and "18:45" in kept


def test_a_title_keeps_its_capitals_and_a_long_line_is_cut_at_a_word():
    assert "Never Let Me Go" in distil.line("I lent Björn Never Let Me Go", at=AT)
    long = distil.line("I " + "really " * 3 + "think the garden needs " + "a lot of work and " * 20 + "rain", at=AT, limit=80)
    assert len(long) <= 80 and long.endswith("…") and " wor…" not in long


def test_the_planted_facts_survive_distillation():
    # the bench's development half, all of it, and no line left in the first person
    result = distil_bench.measure("dev")
    assert result["distilled"]["share"] == 1.0, result["losses"]
    assert result["distilled"]["first_person"] == 0
