"""Counters from the journal, not the clock: a back-filled turn is counted and witnessed once,
and persist, status and reflect agree on what is due."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from souveraine.language import markdown
from souveraine.store import journal
from souveraine.tempos import counters, reflect
from souveraine.tempos.persist import persist
from souveraine.tempos.transcripts import Exchange
from tests.support import assert_clean, git

NOW = datetime(2026, 11, 30, 14, 32, 5, tzinfo=timezone.utc)


@pytest.fixture
def every_four(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", NOW.isoformat())
    config = memory.root / "souveraine.toml"
    text = config.read_text().replace("message_interval = 25", "message_interval = 4")
    config.write_text(text.replace('tempos = "detached"', 'tempos = "inline"'))
    git(memory.root, "commit", "-qam", "chore(config): reflect every four messages, in persist's process")
    return memory


def witnessed_blocks(memory) -> list[set[str]]:
    """For each witness entry, the blocks of the turns it says it saw (first and last links)."""
    found = []
    for turn in journal.turns(memory.root):
        if turn.role == "reflection":
            first = turn.text.split("\n", 1)[0]
            found.append({l.anchor[1:] for l in markdown.wikilinks(first) if l.target.startswith("journal/")})
    return found


def test_a_back_filled_turn_is_counted_and_witnessed_once(every_four, invoke):
    memory = every_four
    first = [persist(memory, Exchange(user=f"today {n}", assistant=f"yes {n}")) for n in range(2)]
    assert first[1].ran["reflection"]["status"] == "done"
    yesterday = NOW - timedelta(days=1)
    late = persist(memory, Exchange(user="said yesterday", assistant="answered yesterday", at=yesterday))
    assert (late.since_reflection, late.reflection_due) == (2, False)
    assert json.loads(invoke("status", "--json").stdout)["since_reflection"] == 2
    turns, witness = reflect.window(memory)
    assert [t.text for t in turns] == ["said yesterday", "answered yesterday"]
    again = persist(memory, Exchange(user="today again", assistant="still here"))
    assert (again.since_reflection, again.reflection_due) == (4, True)
    assert again.ran["reflection"]["turns"] == 4
    after = persist(memory, Exchange(user="then", assistant="now"))
    assert (after.since_reflection, after.reflection_due, after.ran) == (2, False, {})
    assert counters.since_witness(memory) == 2 == json.loads(invoke("status", "--json").stdout)["since_reflection"]
    late_ids = {t["block_id"] for t in late.turns}
    second = witnessed_blocks(memory)[1]
    assert reflect.window(memory)[0][0].text == "then" and not late_ids & {t.block_id for t in reflect.window(memory)[0]}
    assert second, "the second witness names what it saw"
    assert_clean(memory.root)


def test_a_history_imported_in_order_is_witnessed_exactly_once(every_four):
    memory = every_four
    start = NOW - timedelta(days=30)
    said, witnessed = 0, 0
    for n in range(30):
        result = persist(memory, Exchange(user=f"day {n} question", assistant=f"day {n} answer",
                                          at=start + timedelta(days=n)))
        said += 2
        ran = result.ran.get("reflection")
        if ran:
            assert ran["status"] == "done" and ran["reflected"], ran
            witnessed += ran["turns"]
    assert witnessed + counters.since_witness(memory) == said
    assert counters.since_witness(memory) == 60 - witnessed < 4


def test_turns_said_while_a_witness_was_composed_are_the_next_witness_s(every_four, monkeypatch):
    memory = every_four
    config = memory.root / "souveraine.toml"
    config.write_text(config.read_text().replace('tempos = "inline"', 'tempos = "scheduler"'))
    git(memory.root, "commit", "-qam", "chore(config): the scheduler runs the tempos")
    for n in range(2):
        persist(memory, Exchange(user=f"q{n}", assistant=f"a{n}"))
    real = reflect.witness

    def slow_witness(*args, **kwargs):
        persist(memory, Exchange(user="meanwhile", assistant="while you thought"))
        return real(*args, **kwargs)

    monkeypatch.setattr(reflect, "witness", slow_witness)
    done = reflect.run(memory)
    assert done["reflected"] and done["turns"] == 4
    turns, witness = reflect.window(memory)
    assert [t.text for t in turns] == ["meanwhile", "while you thought"]
    assert witness.block_id == done["block_id"]
    assert counters.load(memory).reflection == 2
    assert_clean(memory.root)


def test_a_witness_names_the_last_turn_it_saw(every_four):
    memory = every_four
    results = [persist(memory, Exchange(user=f"q{n}", assistant=f"a{n}")) for n in range(2)]
    [entry] = [t for t in journal.turns(memory.root) if t.role == "reflection"]
    assert counters.through(entry) == (results[1].turns[1]["path"], results[1].turns[1]["block_id"])
