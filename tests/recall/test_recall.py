import json

import pytest

from souveraine.recall.search import recall
from tests.recall.conftest import memory_note
from tests.recall.test_query import NASTY
from tests.support import assert_clean


def paths(result) -> list[str]:
    return [hit.path for hit in result.hits]


def test_a_turn_is_its_own_hit_with_its_block_id_date_snippet_and_link(memory, say):
    (_, user), (_, assistant) = say(
        ("2026-03-14T10:00:00", "user", "I started reading The Left Hand of Darkness, a book by Le Guin."),
        ("2026-03-14T10:00:30", "assistant", "Gethen, a world of winter: enjoy it."))
    hits = recall(memory, "Darkness").hits
    assert hits[0].to_dict() == {
        "path": "journal/2026/03/2026-03-14.md", "block": user, "kind": "turn", "tier": "episodic",
        "date": "2026-03-14T10:00:00", "score": hits[0].score, "role": "user",
        "snippet": "I started reading The Left Hand of «Darkness», a book by Le Guin.",
        "link": f"[[journal/2026/03/2026-03-14#^{user}]]"}
    assert hits[0].score > 0
    assert [h.block for h in hits] == [user, assistant]      # the answer, found through its question
    assert hits[1].snippet == "Gethen, a world of winter: enjoy it."


def test_tiers_order_equal_matches_and_only_episodic_items_fade(memory, note, monkeypatch):
    # Witnessed tiers left uncommitted: the laws refuse an unwitnessed root, and the index
    # reads the working tree anyway.
    for tier in ("episodic", "constitutive", "foundational"):
        note(f"memories/2024-01-01-{tier}-0f3c9a1b.md", "Honesty before comfort, always.", commit=tier == "episodic",
             **memory_note(tier, created="2024-01-01T09:00:00+00:00"))
    note("memories/2026-11-29-fresh-0f3c9a1b.md", "Honesty before comfort, always.", **memory_note(created="2026-11-29T09:00:00+00:00"))
    ranked = recall(memory, "honesty comfort").hits
    assert [h.tier for h in ranked] == ["constitutive", "foundational", "episodic", "episodic"]
    assert ranked[2].path.startswith("memories/2026-11-29")      # the fresh one before the old one
    monkeypatch.setenv("SOUVERAINE_NOW", "2036-11-30T12:00:00+00:00")
    later = {h.path: h.score for h in recall(memory, "honesty comfort").hits}
    assert later[ranked[2].path] < ranked[2].score
    assert [later[h.path] for h in ranked[:2]] == [h.score for h in ranked[:2]]


def test_recency_orders_the_same_words_newest_first_unless_switched_off(memory, say):
    say(("2025-06-01T09:00:00", "user", "The billing release is planned for March, the billing team says."),
        ("2026-11-20T09:00:00", "user", "The billing release is planned for May."))
    assert [h.date[:4] for h in recall(memory, "billing release").hits] == ["2026", "2025"]
    assert [h.date[:4] for h in recall(memory, "billing release", recency=False).hits] == ["2025", "2026"]


def test_dates_in_the_query_filter_like_since_and_until(memory, say, note):
    say(("2026-03-14T10:00:00", "user", "That book about winter was slow."),
        ("2026-05-02T10:00:00", "user", "Another book, a fast one."),
        ("2026-11-29T10:00:00", "user", "A book for the train."),
        ("2025-03-10T10:00:00", "user", "A book for the beach."))
    note("reference/books.md", "Every book I own.")
    march = recall(memory, "what did I say about that book in March")
    assert (paths(march), march.text, march.phrases) == (["journal/2026/03/2026-03-14.md"], "what did I say about that book", ["in March"])
    assert paths(recall(memory, "book 2026-05")) == ["journal/2026/05/2026-05-02.md"]
    assert paths(recall(memory, "book yesterday")) == ["journal/2026/11/2026-11-29.md"]
    assert paths(recall(memory, "book", since="2026-05", until="2026-11-29")) == [
        "journal/2026/11/2026-11-29.md", "journal/2026/05/2026-05-02.md"]
    assert paths(recall(memory, "book in March 2025")) == ["journal/2025/03/2025-03-10.md"]
    assert paths(recall(memory, "book since May", until="2026-06")) == ["journal/2026/05/2026-05-02.md"]
    assert "reference/books.md" in paths(recall(memory, "book"))       # undated notes only without dates
    assert recall(memory, "book in March", since="2026-04").hits == []
    assert len(recall(memory, "what did I say last week").hits) == 1   # only dates: a listing of that week


def test_filters_by_tier_folder_and_person(memory, say, note):
    say(("2026-11-20T10:00:00", "user", "Clara called about the boat."),
        ("2026-11-21T10:00:00", "user", "Malik called about the boat."),
        ("2026-11-22T10:00:00", "user", "The boat needs paint, ask [[people/clara]]."))
    note("people/clara.md", "My sister; she sails the boat.", aliases=["Clo"])
    note("memories/2026-11-01-boat-0f3c9a1b.md", "The boat is blue.", commit=False, **memory_note("foundational"))
    assert paths(recall(memory, "boat", tier="foundational")) == ["memories/2026-11-01-boat-0f3c9a1b.md"]
    assert set(paths(recall(memory, "boat", within="journal/2026/11"))) == {
        "journal/2026/11/2026-11-20.md", "journal/2026/11/2026-11-21.md", "journal/2026/11/2026-11-22.md"}
    assert paths(recall(memory, "boat", within="people/")) == ["people/clara.md"]
    with_clara = set(paths(recall(memory, "boat", person="Clara")))
    assert with_clara == {"journal/2026/11/2026-11-20.md", "journal/2026/11/2026-11-22.md", "people/clara.md"}
    assert set(paths(recall(memory, "", person="Clara"))) == with_clara
    assert paths(recall(memory, "sister", person="Clo")) == ["people/clara.md"]


def test_private_memories_only_when_asked(memory, note):
    note("memories/2026-11-01-code-0f3c9a1b.md", "The door code is 4411.", **memory_note(visibility="private"))
    note("memories/2026-11-02-door-0f3c9a1b.md", "The door sticks in winter.", **memory_note())
    assert paths(recall(memory, "door")) == ["memories/2026-11-02-door-0f3c9a1b.md"]
    assert recall(memory, "4411").hits == []
    assert set(paths(recall(memory, "door", private=True))) == {
        "memories/2026-11-01-code-0f3c9a1b.md", "memories/2026-11-02-door-0f3c9a1b.md"}


def test_no_query_crashes_the_command(invoke, say):
    say(("2026-11-20T10:00:00", "user", "A café book 📚 about NEAR and OR: jean-pierre's e-mail (draft)."))
    for text in NASTY:
        result = invoke("recall", "--json", "--", text)
        assert (result.exit_code, result.stderr) == (0, ""), text
        assert isinstance(json.loads(result.stdout), list), text
    assert len(json.loads(invoke("recall", "--json", "--", "📚 NEAR(café) -jean-pierre*").stdout)) == 1


def test_the_command_prints_hits_for_people_and_json_for_programs(invoke, say, memory):
    (_, block), = say(("2026-03-14T10:00:00", "user", "I finished the book about lighthouses."))
    text = invoke("recall", "lighthouses", "in", "March")
    assert text.exit_code == 0
    heading, snippet = text.stdout.splitlines()
    assert heading.startswith("2026-03-14 10:00  episodic ") and heading.endswith(f"  journal/2026/03/2026-03-14.md#^{block}")
    assert snippet == "    I finished the book about «lighthouses»."
    assert text.stderr == "dates: 2026-03-01 to 2026-03-31 (from 'in March')\n"
    assert json.loads(invoke("recall", "zeppelins", "--json").stdout) == []
    assert (invoke("recall", "zeppelins").stdout, invoke("recall", "zeppelins").stderr) == ("", "nothing found\n")
    assert_clean(memory.root)


@pytest.mark.parametrize("args, code, message", [
    (["book", "--since", "soon"], 2, "--since 'soon' is not a date; give 2026-03-14, 2026-03, 2026, or a phrase like 'last week'"),
    (["book", "--in", "../elsewhere"], 2, "'../elsewhere' is not a path inside the memory"),
    (["book", "--person", "!!"], 2, "--person needs a name with letters or digits, not '!!'"),
    ([], 2, "give words to look for, or a filter such as --since 2026-03 or --person ada"),
    (["book", "--limit", "0"], 2, "0 is not in the range 1<=x<=1000"),
])
def test_bad_options_are_one_line_and_exit_2(invoke, args, code, message):
    result = invoke("recall", *args)
    assert result.exit_code == code
    assert message in result.stderr


def test_index_shows_its_state_and_rebuilds(invoke, say, memory):
    say(("2026-03-14T10:00:00", "user", "Words."))
    first = json.loads(invoke("index", "--json").stdout)
    assert first["update"]["mode"] == "rebuild" and first["fresh"] and first["kinds"] == {"person": 1, "turn": 1}
    assert json.loads(invoke("index", "--json").stdout)["update"]["mode"] == "fresh"
    again = json.loads(invoke("index", "--rebuild", "--json").stdout)
    assert again["update"]["mode"] == "rebuild" and again["documents"] == 2
    shown = invoke("index").stdout
    assert "documents  2 from 2 files: 1 people, 1 turns" in shown and "state      up to date" in shown
    assert_clean(memory.root)


def test_words_in_most_turns_are_not_scored_but_still_found(memory, say):
    """At scale a word in most turns ranks nothing and costs most; a name stemmed into one still finds."""
    turns = [(f"2026-10-{1 + n // 60:02d}T{8 + n % 60 // 6:02d}:{n % 6 * 10:02d}:00", "user",
              f"thinking in circles, note {n}") for n in range(1200)]
    turns[40] = ("2026-10-01T14:00:00", "user", "thinking about the kayak trip")
    turns[-1] = ("2026-10-20T23:00:00", "user", "Ines sent a postcard")
    say(*turns)
    assert [h.snippet for h in recall(memory, "thinking kayak", limit=1).hits] == ["«thinking» about the «kayak» trip"]
    assert recall(memory, "thinking", limit=3).hits[0].date.startswith("2026-10-20")     # all alike: newest first
    assert [h.snippet for h in recall(memory, "Ines Lisbon", limit=1).hits] == ["«Ines» sent a postcard"]
