"""The synthesis keeps the facts: the planted-fact benchmark's regression guard (bench/synthesis.py
runs the full 1,000 turns on both halves), supersession, and nothing dropped in silence."""

from datetime import datetime

import pytest

from bench import synthesis as bench
from souveraine.store import notes
from souveraine.tempos import archive
from tests.support import assert_clean
from tests.tempos.conversation import configure, say


def test_every_planted_fact_holds_its_own_words():
    for half in bench.HALVES:
        for fact in bench.planted(half):
            assert all(key.casefold() in fact.text.casefold() for key in fact.keys), fact.text
    assert len(bench.planted("dev")) + len(bench.planted("held-out")) >= 200


def test_planted_facts_survive_two_syntheses(memory, monkeypatch):
    """The development half, 200 turns archived every 100: the facts said once, early, included."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-12-01T12:00:00")
    said, facts = bench.conversation("dev", 1000, seed=3)
    said, facts = said[:200], [f for f in facts if f.at < 200]
    scores = []
    for first in (0, 100):
        bench.journal_turns(memory, said[first:first + 100], datetime(2026, 9, 1, 9, 0), first)
        done = archive.run(memory, force=True, extractive_only=True)
        scores.append(bench.score(memory, done["path"], [f for f in facts if f.at < first + 100]))
    assert scores[0]["share"] >= 0.95 and scores[1]["share"] >= 0.90, [f.text for s in scores for f in s["lost"]]
    assert [s["broken_citations"] for s in scores] == [0, 0]
    assert any(f.at < 50 for f in facts)
    assert_clean(memory.root)


def test_a_changed_fact_supersedes_the_old_one_which_stays_marked(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    first = say(memory, "2026-11-30T09:00:00", [("user", "The dentist appointment is on Thursday at 14:30."),
                                                ("assistant", "Noted, Thursday at 14:30.")])
    archive.run(memory, force=True)
    later = say(memory, "2026-11-30T11:00:00", [("user", "The dentist appointment moved to Friday at 9:15."),
                                                ("assistant", "Got it.")])
    done = archive.run(memory, force=True)
    body = notes.read(memory.root / done["path"]).body
    current, old = body.split("## Superseded")[0], body.split("## Superseded")[1]
    assert "The dentist appointment moved to Friday at 9:15." in current
    assert "14:30" not in current
    assert (f"- ~~The dentist appointment is on Thursday at 14:30.~~ ([[journal/2026/11/2026-11-30#^{first[0]}]]) → "
            f"[[journal/2026/11/2026-11-30#^{later[0]}]]") in old
    say(memory, "2026-11-30T12:00:00", [("user", "Lovely weather for it."), ("assistant", "It is.")])
    again = notes.read(memory.root / archive.run(memory, force=True)["path"]).body
    assert "~~The dentist appointment is on Thursday at 14:30.~~" in again      # carried, still marked


def test_what_does_not_fit_is_counted_and_pointed_at(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    configure(memory, "models.default", context_limit=6000)        # a budget of 300 tokens
    facts = [("user", f"Remember that locker {n} holds the {word} kit, code {1000 + n}.")
             for n, word in enumerate(("climbing", "diving", "sailing", "camping", "fencing", "rowing", "skiing",
                                       "archery", "cycling", "boxing", "judo", "polo", "golf", "rugby", "hockey"))]
    say(memory, "2026-11-30T09:00:00", facts[:12])
    first = archive.run(memory, force=True)
    say(memory, "2026-11-30T10:00:00", facts[12:] + [("user", f"Remember the {w} match is at {h}:00 on Saturday.")
                                                     for w, h in (("chess", 9), ("bridge", 10), ("poker", 11))])
    second = archive.run(memory, force=True)
    body = memory.read_text(second["path"])
    moved = second["moved"][0]["to"][:-3]
    assert f"of the superseded synthesis did not fit; [[{moved}]] keeps them._" in body
    assert memory.exists(second["moved"][0]["to"]) and first["path"] != second["path"]


@pytest.mark.parametrize("sentence,kind", [
    ("We decided to host the orchard archive on Hetzner, not at home.", "decision"),
    ("I'll send you the revised cover letter by Friday.", "commitment"),
    ("Inês is allergic to peanuts.", "preference"),
    ("The dentist is on Thursday at 14:30.", "date"),
    ("My budget is 3,000 € for the kitchen.", "number"),
])
def test_each_kind_of_fact_is_read(sentence, kind):
    from souveraine.inference import facts

    assert facts.read(sentence).kind == kind


def test_questions_and_pleasantries_weigh_less_than_facts():
    from souveraine.inference import facts

    fact = facts.read("The dentist is on Thursday at 14:30.")
    assert facts.read("Should we see the dentist on Thursday at 14:30?").weight < fact.weight
    assert facts.read("Thanks, that helps a lot!").weight < 0
    assert facts.read("The morning was slow, one afternoon we walked.").kind != "date"
