"""What a sentence asserts, as the archivist reads it."""

from souveraine.inference import facts


def test_a_weekday_said_as_a_habit_is_a_when():
    reading = facts.read("the cleaner comes on Mondays, so don't schedule deliveries then")
    assert reading.kind == "date" and "Mondays" in reading.values
    assert "every other Tuesday" in facts.read("Bins go out every other Tuesday.").values


def test_small_talk_is_no_fact_however_it_is_cued():
    for said in ("Love it.", "Enjoy your weekend!", "Happy you like it!", "Rest tonight if you can.",
                 "Time to stop for today.", "See you tomorrow."):
        assert facts.read(said, role="assistant").weight < 0, said


def test_a_short_fact_with_a_rare_word_a_moment_or_a_cue_still_counts():
    assert facts.read("I'm vegan.").kind == "preference"
    assert facts.read("I hate cilantro.").weight > 0
    assert facts.read("See you Friday.").kind == "date"
    assert facts.read("I'll send it tomorrow.").kind == "commitment"
    assert facts.read("Inês loves it.", names=["Inês"]).weight > 0
