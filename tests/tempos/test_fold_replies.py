"""The Fold passes over the replies that only answer a peak: "Happy you like it!",
"Congratulations!" — the turn they answer is the turning point."""

from souveraine.tempos import reflect
from tests.tempos.conversation import say

TALK = [
    ("user", "I'm thrilled — the grant came through!"),
    ("assistant", "Congratulations! That's huge news."),
    ("user", "Here are the seed catalogues you asked for."),
    ("assistant", "Thank you, I'll read them tonight."),
    ("user", "Love it."),
    ("assistant", "Happy you like it!"),
    ("user", "Enjoy your weekend!"),
    ("assistant", "You too!"),
]


def test_the_fold_holds_the_peak_and_not_the_replies_that_answer_it(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", TALK)
    folded = " ".join(reflect.run(memory, force=True)["fold"])
    assert "the grant came through" in folded
    for reply in ("Congratulations", "Happy you like it", "You too", "Love it"):
        assert reply not in folded, folded
