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
        ("2026-03-14T10:00:00", "user", "Have you read The Left Hand of Darkness, a book by Le Guin?"),
        ("2026-03-14T10:00:30", "assistant", "Gethen, a world of winter: enjoy it."))
    hits = sorted(recall(memory, "Darkness").hits, key=lambda h: h.role != "user")    # a question and its answer
    assert hits[0].to_dict() == {
        "path": "journal/2026/03/2026-03-14.md", "block": user, "kind": "turn", "tier": "episodic",
        "date": "2026-03-14T10:00:00", "score": hits[0].score, "role": "user", "source": "",
        "snippet": "Have you read The Left Hand of «Darkness», a book by Le Guin?",
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


def test_dates_in_the_query_rank_and_since_until_filter(memory, say, note):
    say(("2026-03-14T10:00:00", "user", "That book about winter was slow."),
        ("2026-05-02T10:00:00", "user", "Another book, a fast one."),
        ("2026-11-28T10:00:00", "user", "A book for the train."),
        ("2025-03-10T10:00:00", "user", "A book for the beach."),
        ("2026-11-29T10:00:00", "user", "Nothing to read today."))
    note("reference/books.md", "Every book I own.")
    march = recall(memory, "what did I say about that book in March")
    assert (paths(march)[0], march.text, march.phrases) == ("journal/2026/03/2026-03-14.md", "what did I say about that book", ["in March"])
    assert len([h for h in march.hits if "book" in h.snippet]) == 5     # evidence, not a wall: nothing is taken away
    assert paths(recall(memory, "book 2026-05"))[0] == "journal/2026/05/2026-05-02.md"
    assert paths(recall(memory, "book yesterday"))[0] == "journal/2026/11/2026-11-28.md"     # the day before the latest turn
    assert paths(recall(memory, "book in March 2025"))[0] == "journal/2025/03/2025-03-10.md"
    assert paths(recall(memory, "book", since="2026-05", until="2026-11-28")) == [
        "journal/2026/11/2026-11-28.md", "journal/2026/05/2026-05-02.md"]
    since_may = paths(recall(memory, "book since May", until="2026-06"))                     # --until is a wall
    assert since_may[0] == "journal/2026/05/2026-05-02.md" and len(since_may) == 3
    assert recall(memory, "book in March", since="2026-04", until="2026-04").hits == []    # the options are walls
    listed = paths(recall(memory, "what did I say this week"))     # only dates: that week, then what is nearest
    assert listed[:3] == ["journal/2026/11/2026-11-29.md", "journal/2026/11/2026-11-28.md", "journal/2026/05/2026-05-02.md"]


def test_relative_dates_count_from_the_latest_turn_or_now(memory, say):
    say(("2023-06-14T10:00:00", "user", "We went camping by the lake, the tent leaked."),
        ("2022-06-20T10:00:00", "user", "Camping again! The tent held this time."),
        ("2023-10-20T10:00:00", "user", "Planning a quiet winter."))
    june = recall(memory, "When did she go camping in June?")
    assert june.hits[0].date.startswith("2023-06-14")
    assert june.readings[0].ambiguous and "latest June up to 2023-10-20" in june.readings[0].note
    assert june.anchor == "the memory's latest turn"
    last_year = recall(memory, "their camping trip last year")
    assert last_year.hits[0].date.startswith("2022-06-20") and len(last_year.hits) == 3     # the period fills the rest
    assert recall(memory, "camping in June", now="2022-12-01").hits[0].date.startswith("2022-06-20")


def test_a_turn_telling_of_a_day_is_found_by_that_day(memory, say):
    say(("2023-07-20T10:00:00", "user", "The lake was lovely, we should go back."),
        ("2023-08-03T10:00:00", "user", "Last week, we took the kids to the lake and they swam."),
        ("2023-08-20T10:00:00", "user", "Back at the lake with friends."))
    found = recall(memory, "what did they do at the lake the week before August 3")
    assert found.hits[0].date.startswith("2023-08-03")          # told on the 3rd, of the week before


def test_an_answer_ranks_by_the_question_it_answers(memory, say):
    say(*[(f"2026-05-{d:02d}T10:00:00", "user", f"My family and I argue about the chores, day {d}.", f"s{d}")
          for d in range(1, 9)])
    (_, question), (_, answer) = say(
        ("2026-06-01T10:00:00", "assistant", "How often does he work out with his family?", "gym"),
        ("2026-06-01T10:01:00", "user", "Three times a week; it keeps us on track.", "gym"))
    blocks = [h.block for h in recall(memory, "how often does he work out with his family", limit=3).hits]
    assert blocks[:2] == [answer, question]         # the answer first: the question only asks


def test_a_short_period_named_by_the_query_is_evidence_without_its_words(memory, say):
    say(*[(f"2026-0{m}-{d:02d}T09:00:00", "user", f"Busy day at the clinic, {m}/{d}.", f"c{m}{d}")
          for m in (2, 3, 5) for d in (3, 9, 15, 21)])
    (_, evidence), = say(("2026-04-18T08:00:00", "user", "Problem: my autoclave failed its test this morning.", "a"))
    blocks = [h.block for h in recall(memory, "What broke at the clinic in mid-April 2026?").hits]
    assert evidence in blocks[:3]


def test_only_a_question_passes_its_match_on_to_the_reply(memory, say):
    _, (_, answer) = say(("2026-06-01T10:00:00", "user", "So did the plumber finally come round to fix that boiler valve?", "a"),
                         ("2026-06-01T10:01:00", "assistant", "Yes, on Monday.", "a"))
    _, (_, reply) = say(("2026-06-02T10:00:00", "user", "Plumber fixed the boiler valve.", "b"),
                        ("2026-06-02T10:01:00", "assistant", "Good news, finally.", "b"))
    blocks = [h.block for h in recall(memory, "plumber boiler valve").hits]
    assert blocks.index(answer) < blocks.index(reply)     # the newer reply answers no question


def test_a_turn_is_found_through_the_reply_that_names_what_it_told(memory, say):
    say(*[(f"2026-0{m}-10T07:00:00", "user", f"Ordinary week at the bakery, batch {m}.", f"w{m}") for m in (2, 3, 4)])
    (_, told), (_, reply) = say(("2025-12-27T07:00:00", "user", "we did 212 pompes in the end, I slept three hours", "x"),
                                ("2025-12-27T07:01:00", "assistant", "That's a huge Christmas for the bakery.", "x"))
    question = "What happened at the bakery at Christmas?"
    blocks = [h.block for h in recall(memory, question, limit=3).hits]
    assert blocks[:2] == [reply, told]                      # "Christmas" is only in the reply
    alone = [h.block for h in recall(memory, question, limit=3, ranking=_ranking(memory, prompt_share=0.0)).hits]
    assert alone.index(told) > 1                            # under a week's talk "at the bakery"


def test_a_turn_that_asks_ranks_below_the_one_that_tells(memory, say):
    (_, tells), = say(("2026-03-06T09:00:00", "user", "The technician came: the oven fan bearing was worn, fixed for 310 euros.", "a"))
    (_, asks), = say(("2026-11-12T09:00:00", "assistant", "Did the technician look at the oven fan?", "b"))
    question = "oven fan technician"
    assert [h.block for h in recall(memory, question).hits][:2] == [tells, asks]
    assert [h.block for h in recall(memory, question, ranking=_ranking(memory, asking=1.0)).hits][:2] == [asks, tells]


def test_a_question_asking_who_raises_the_turns_that_name_someone(memory, say):
    say(*[(f"2026-0{m}-05T08:00:00", "user", f"Night shifts again this week, course on Thursday {m}.", f"n{m}")
          for m in (2, 3, 4, 5)])
    (_, named), = say(("2026-06-05T08:00:00", "user", "Joana took my Thursday night so I can go to the course.", "j"))
    question = "Who covered a shift for her when the course and the nights clashed?"
    assert [h.block for h in recall(memory, question).hits][0] == named
    assert [h.block for h in recall(memory, question, ranking=_ranking(memory, kind_weight=0.0)).hits][0] != named


def _ranking(memory, **changed):
    from souveraine.recall.rank import Ranking
    from souveraine.store import clock

    return Ranking(clock.now().timestamp(), **changed)


def test_a_derived_note_ranks_at_its_source_time_and_does_not_crowd_it_out(memory, say, note, invoke):
    (path, block), = say(("2024-02-03T09:15:00", "user", "Please remember that my locker code is 7731."))
    source = f"[[{path[:-3]}#^{block}]]"
    note("memories/2026-11-29-locker-0f3c9a1b.md", "The locker code is 7731.",
         **memory_note(created="2026-11-29T10:00:00+00:00", source=source))
    say(("2026-11-29T10:00:00", "user", "Unrelated words."))
    hits = recall(memory, "locker code").hits
    assert len(hits) == 1 and hits[0].date.startswith("2024-02-03")       # one place for the note and its turn
    both = recall(memory, "locker code", every=True).hits
    assert {h.kind for h in both} == {"memory", "turn"}
    memory_hit = next(h for h in both if h.kind == "memory")
    assert memory_hit.date == "2024-02-03T09:15:00" and memory_hit.source == source
    shown = json.loads(invoke("recall", "locker", "--all", "--context", "1", "--json").stdout)
    assert all(hit["context"][0]["block"] == block for hit in shown)


def test_context_shows_hits_as_exchanges(memory, say, invoke):
    say(("2026-06-01T10:00:00", "user", "Where did you put the spare key?", "k"),
        ("2026-06-01T10:01:00", "assistant", "Under the blue flowerpot by the door.", "k"),
        ("2026-06-01T10:02:00", "user", "Thanks!", "k"),
        ("2026-06-01T10:03:00", "user", "Unrelated.", "other"))
    shown = invoke("recall", "flowerpot", "--context", "1")
    assert shown.exit_code == 0
    assert shown.stdout.splitlines()[1:4] == ["    user      Where did you put the spare key?",
                                            "  > assistant Under the blue flowerpot by the door.",
                                            "    user      Thanks!"]
    data = json.loads(invoke("recall", "flowerpot", "--context", "1", "--json").stdout)
    assert [t["hit"] for t in data[0]["context"]] == [False, True, False]
    assert "context" not in json.loads(invoke("recall", "flowerpot", "--json").stdout)[0]


def test_hits_spread_over_conversations(memory, say):
    say(*[(f"2026-05-01T10:{m:02d}:00", "user", f"Piranesi by Susanna Clarke, chapter {m}, the author is great.", "one")
          for m in range(12)])
    (_, other), = say(("2026-05-09T10:00:00", "user", "Another author I read: Ursula Le Guin.", "two"))
    assert other in [h.block for h in recall(memory, "which author", limit=3).hits]


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
    assert text.stderr == ("dates: 2026-03-01 to 2026-03-31 (from 'in March'; no year given: the latest March"
                           " up to 2026-03-14 (the memory's latest turn))\n")
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
    assert first["update"]["mode"] == "rebuild" and first["fresh"] and first["kinds"] == {"turn": 1}
    assert json.loads(invoke("index", "--json").stdout)["update"]["mode"] == "fresh"
    again = json.loads(invoke("index", "--rebuild", "--json").stdout)
    assert again["update"]["mode"] == "rebuild" and again["documents"] == 1     # init's empty indexes are none
    shown = invoke("index").stdout
    assert "documents  1 from 3 files: 1 turns" in shown     # the day, people/_index.md, reference/decisions/_index.md and "state      up to date" in shown
    assert_clean(memory.root)


def test_words_in_most_turns_are_not_scored_but_still_found(memory, say):
    """At scale a word in most turns ranks nothing and costs most; a name stemmed into one still finds."""
    turns = [(f"2026-10-{1 + n // 60:02d}T{8 + n % 60 // 6:02d}:{n % 6 * 10:02d}:00", "user",
              f"thinking in circles, note {n}") for n in range(1200)]
    turns[40] = ("2026-10-01T14:00:00", "user", "thinking about the kayak trip")
    turns[-1] = ("2026-10-20T23:00:00", "user", "Ines sent a postcard")
    turns[-2] = ("2026-10-20T22:00:00", "user", "Inês learned to knit, slowly")
    turns[-3] = ("2026-10-20T21:00:00", "user", "I learned a new word today")
    say(*turns)
    assert [h.snippet for h in recall(memory, "thinking kayak", limit=1).hits] == ["«thinking» about the «kayak» trip"]
    assert recall(memory, "thinking", limit=3).hits[0].date.startswith("2026-10-20")     # all alike: newest first
    assert [h.snippet for h in recall(memory, "Ines Lisbon", limit=1).hits] == ["«Ines» sent a postcard"]
    # "Inês" is stemmed "in", a word of every turn: the name is looked up whole
    assert recall(memory, "what did Inês learn", limit=1).hits[0].snippet == "«Inês» «learned» to knit, slowly"


def test_a_word_finds_its_irregular_forms(memory, say, invoke):
    say(*[(f"2026-05-{d:02d}T07:00:00", "user", f"Sold out of baguettes again on day {d}, we need to buy more flour.", f"f{d}")
          for d in range(1, 7)])
    (_, bought), = say(("2026-03-02T07:00:00", "user", "I bought a spiral mixer, 80 kg of dough, on a loan.", "m"))
    hits = json.loads(invoke("recall", "What machines did Karim buy for the bakery?", "--limit", "3", "--json").output)
    assert hits[0]["block"] == bought
    assert "«bought»" in hits[0]["snippet"]


def test_snippets_are_the_index_s_own_and_a_search_writes_nothing_to_it(memory, say):
    from souveraine.recall import index, search

    say(("2026-03-14T10:00:00", "user", "The lighthouse keeper of Sines wrote to me about the storm"),
        ("2026-03-14T10:00:30", "assistant", "Did the storm reach the harbour too?"),
        ("2026-03-15T09:00:00", "user", "Inês fixed the lighthouse lamp, then the harbour crane"))
    conn, _ = index.fresh(memory)
    try:
        ids = [row[0] for row in conn.execute("SELECT id FROM docs WHERE kind = 'turn'")]
        for words in ('"lighthouse"', '"storm" OR "harbour"', '"ines"', '"harbour" AND "crane"'):
            asked = dict(conn.execute(      # FTS5 over the whole index, as snippets were once found
                "SELECT rowid, snippet(fts, 1, '«', '»', '…', 24) FROM fts WHERE fts MATCH ?"
                f" AND rowid IN ({', '.join('?' * len(ids))})", [words, *ids]))
            before = conn.total_changes
            found = search._snippets(conn, ids, words)
            assert conn.total_changes == before, "the scratch table is not the index's connection's"
            assert {i: found[i] for i in asked} == {i: " ".join(s.split()) for i, s in asked.items()}, words
            assert asked, words
    finally:
        conn.close()
