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


def test_a_deadline_stays_a_deadline_and_a_phrase_reckoned_from_an_event_stays_as_said():
    assert distil.line("I'll send you the draft by Friday", role="assistant", at=AT) == \
        "The agent will send you the draft by Friday 2026-12-04."
    assert distil.line("The rope has to go back before Saturday", at=AT) == \
        "The rope has to go back before Saturday 2026-12-05."
    assert distil.line("Nkechi flies on the 2nd, so the dinner has to be the weekend before", at=AT) == \
        "Nkechi flies on the 2nd, so the dinner has to be the weekend before."
    assert distil.line("Physio moved me to Tuesday 9:15", at=AT) == "Physio moved the user to Tuesday 9:15."
    assert distil.line("Amélie's coming Sunday instead", at=AT) == "Amélie's coming on Sunday 2026-12-06 instead."


def test_an_aside_between_dashes_goes_without_a_seam_and_a_clause_keeps_the_one_it_leans_on():
    assert distil.line("Łukasz — the guy from the climbing gym — is the one who lent me the rope", at=AT, about="Łukasz") == \
        "Łukasz is the one who lent the user the rope."
    assert distil.line("Hiroshi replied — he can review the contract, but only after the 12th; I said fine", role="assistant",
                       at=AT, about="Hiroshi") == "Hiroshi replied; he can review the contract, but only after the 12th."
    assert distil.line("Noted — I'll book it tomorrow", role="assistant", at=AT) == "The agent will book it on Tuesday 2026-12-01."


def test_a_line_that_would_lose_a_figure_or_a_name_is_the_sentence_as_written():
    said = "I said I'd ask my brother tomorrow if I can borrow the van of Tomás"     # 67 characters
    assert distil.line(said, at=AT, limit=70) == said + "."     # distilled, it would be cut before "Tomás"
    assert distil.line(said, at=AT, limit=200).startswith("The user said the user would ask the user's brother on Tuesday")
    assert distil._lost("The user met Tomás at 10:00.", "I met Tomás at 10", AT) == []
    assert distil._lost("The user met him.", "I met Tomás at 10", AT) == ["10", "Tomás"]
    assert distil._lost("Kenji did it in 2025.", "Kenji did it last year", AT) == []


def test_a_clause_that_says_only_who_keeps_the_news_after_it():
    assert distil.line("Tomás called — the kitchen fitters have gone bust, so we're back to square one", at=AT,
                       about="Tomás") == "Tomás called; the kitchen fitters have gone bust."
    assert distil.line("Gabriel's diabetic — type 1 — so nothing with sugar in the snacks", at=AT, about="Gabriel") == \
        "Gabriel's diabetic (type 1) so nothing with sugar in the snacks."
    assert distil.line("I called Inês about the cake; she was in a hurry, so we kept it short", at=AT, about="Inês") == \
        "The user called Inês about the cake."


def test_the_development_batch_keeps_its_facts():
    """bench/data/distil-development.tsv, written to tune on: a guard against losing what it taught."""
    result = distil_bench.measure(distil_bench.BATCH)
    assert result["distilled"]["kept"] >= result["facts"] - 1 and result["distilled"]["first_person"] == 0
