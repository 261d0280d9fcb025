"""Reflection that says something: the Fold finds turning points, the Anchor what held, the
Flame only new names (bench/fold.py measures the Fold on its labelled set)."""

from bench import fold as fold_bench
from souveraine.tempos import reflect
from tests.tempos.conversation import say

TALK = [
    ("user", "Consider the options for the orchard lease with Hortense."),
    ("assistant", "Glad they help."),
    ("user", "Yes please."),
    ("assistant", "Enjoy the weekend! Hortense wrote about the lease again."),
    ("user", "I'm so relieved, Hortense agreed to the lower rent!"),
    ("assistant", "Love it."),
    ("user", "Safe travels, by the way. Random thought: Dr. Okafor called too."),
    ("assistant", "We decided to sign with Hortense on Friday, then."),
    ("user", "Mild weather for it. Hortense will bring the keys."),
    ("assistant", "Thanks, noted."),
]


def test_the_fold_is_turning_points_the_anchor_a_person_the_flame_new_names(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", TALK)
    seen = reflect.run(memory, force=True)
    folded = " ".join(seen["fold"])
    assert "relieved, Hortense agreed" in folded and "We decided to sign with Hortense" in folded
    for thanks in ("Glad they help", "Yes please", "Love it", "Thanks, noted"):
        assert thanks not in folded
    assert seen["anchor"][0].startswith("*Hortense*")
    # "Random" and "Mild" are not among the thousand common words, so a new memory still lists them
    assert not {"Consider", "Enjoy", "Safe", "Dr", "Dr.", "Thanks", "Glad", "Love"} & set(seen["flame"])
    assert "Hortense" in seen["flame"] and "Okafor" in seen["flame"]


def test_the_fold_holds_its_figures_on_the_development_half():
    result = fold_bench.measure("dev")
    assert result["precision"] >= 0.95 and result["recall"] >= 0.90, result["errors"]


def test_the_fold_keeps_its_figures_on_the_held_out_half():
    # a regression guard a little under the measured 1.000 / 0.931; its errors are not printed
    result = fold_bench.measure("held-out")
    assert result["precision"] >= 0.95 and result["recall"] >= 0.90, (result["precision"], result["recall"])
