"""Recurring fields: what the journal keeps returning to, named by the words people use for it."""

from datetime import datetime, timedelta

from bench import fields as fields_bench
from souveraine.care import fields
from souveraine.store.journal import Turn


def _turns(days: list[str]) -> list[Turn]:
    start = datetime(2026, 3, 2, 9, 0)
    at = [start + timedelta(days=3 * i) for i in range(len(days))]
    return [Turn(f"t{i}", when, "user", "s1", text, f"journal/{when:%Y/%m/%Y-%m-%d}.md")
            for i, (when, text) in enumerate(zip(at, days))]


def test_a_common_noun_names_a_field_and_a_verb_or_a_family_does_not():
    said = _turns([
        "Wrote two pages of the book this morning. It feels slow.",
        "My family came round. The book is at chapter three.",
        "She feels the book needs a prologue. The family agrees.",
        "Finished the book's first draft! It feels good.",
        "Sent my book to my sister; the family is proud.",
    ])
    named = [f.name for f in fields.recurring(said)]
    assert "book" in named
    assert not {"feels", "feel", "family"} & set(named), named


def test_the_commonest_words_name_no_field():
    said = _turns([f"Back home after work, the time flew. The home office at work again, day {n}." for n in range(6)])
    assert [f.name for f in fields.recurring(said)] == ["office"]      # not "home", "work", "time"


def test_the_development_half_keeps_its_figures():
    result = fields_bench.measure("dev")
    assert result["precision"] >= 0.80 and result["recall"] >= 0.80, result["errors"]
