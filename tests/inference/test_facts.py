"""What a sentence asserts, as the archivist reads it."""

from souveraine.inference import facts


def test_a_weekday_said_as_a_habit_is_a_when():
    reading = facts.read("the cleaner comes on Mondays, so don't schedule deliveries then")
    assert reading.kind == "date" and "Mondays" in reading.values
    assert "every other Tuesday" in facts.read("Bins go out every other Tuesday.").values
