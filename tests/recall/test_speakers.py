"""A name the question gives to a speaker: the turns of that speaker, not the greetings."""

import json

from souveraine.recall import conversation, index


def _bakery(say):
    """Karim's story, with the assistant greeting him by name in session after session."""
    turns = []
    for day, (greeting, reply) in enumerate([
            ("Bonjour Karim. How did the oven look?", "the fan is noisy again"),
            ("Karim! That's fantastic. When is it?", "the 22nd, in Aix"),
            ("I'm sorry, Karim. What happened?", "the mixer broke this morning"),
            ("Eid Mubarak, Karim. How did the month go?", "busy, we sold out every evening"),
            ("Good evening Karim, how are the new recipes?", "the khobz sells well")], 1):
        turns += [(f"2026-0{day}-02T08:00:00", "assistant", greeting, f"g{day}"),
                  (f"2026-0{day}-02T08:01:00", "user", reply, f"g{day}")]
    turns += [("2026-07-01T09:00:00", "user", "Beatriz came with the kids; Beatriz loves the croissants", "b"),
              ("2026-07-03T09:00:00", "user", "Beatriz again this morning, and then Beatriz's husband", "c"),
              ("2026-07-05T09:00:00", "user", "Beatriz says hi. Beatriz, Beatriz, always Beatriz", "d")]
    placed = say(*turns)
    (_, trained), = say(("2026-08-10T06:00:00", "user", "the new apprentice started this morning, very shy", "a"))
    return placed, trained


def test_a_name_the_other_speaker_addresses_is_the_speakers_own(memory, say):
    _bakery(say)
    conn, _ = index.fresh(memory)
    try:
        found = conversation.addressed(conn, ["karim", "beatriz", "aix"])
    finally:
        conn.close()
    assert found == {"karim": "user"}       # Beatriz is written about, never spoken to


def test_a_speakers_name_in_the_question_finds_their_turns_not_the_greetings(memory, say, invoke):
    _, trained = _bakery(say)
    result = invoke("recall", "Which apprentice has Karim trained?", "--limit", "3", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert hits[0]["block"] == trained
    assert all("Karim" not in h["snippet"] for h in hits)


def test_a_name_alone_is_still_searched(memory, say, invoke):
    _bakery(say)
    hits = json.loads(invoke("recall", "Karim", "--json").output)
    assert sum("«Karim»" in h["snippet"] for h in hits) == 5     # nothing else to search by
