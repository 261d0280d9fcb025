"""Reflection that says something: the Fold finds turning points, the Anchor what held, the
Flame only new names (bench/fold.py measures the Fold on its labelled set)."""

from bench import fold as fold_bench
from bench import reflection as reflection_bench
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


def _window(turns):
    from datetime import datetime, timedelta

    from souveraine.store.journal import Turn

    start = datetime(2026, 11, 30, 14, 0)
    return [Turn(f"t{i}", start + timedelta(minutes=i), role, "s1", text, "journal/2026/11/2026-11-30.md")
            for i, (role, text) in enumerate(turns)]


def _anchored(turns, held=frozenset()):
    return [line[1:line.index("*", 1)] for line in reflect.anchor(_window(turns), set(held)) if line.startswith("*")]


def test_the_anchor_joins_a_name_said_with_and_without_its_title():
    turns = [("user", "I have Professor Hartmann's comments on chapter three."), ("assistant", "What did he say?"),
             ("user", "More on sampling."), ("assistant", "That is common."), ("user", "And a paragraph on theory."),
             ("assistant", "Fine."), ("user", "Hartmann expects it by Friday.")]
    assert _anchored(turns)[:1] == ["Professor Hartmann"]


def test_the_anchor_holds_a_parent_however_they_are_called():
    turns = [("user", "Mum fell in the garden this morning."), ("assistant", "Oh no. Is she hurt?"),
             ("user", "Her wrist, they think."), ("assistant", "I hope it's a sprain."),
             ("user", "Small fracture, a cast for six weeks."), ("assistant", "Give your mother my best.")]
    assert _anchored(turns) == ["Mum"]


def test_the_anchor_names_no_everyday_word_and_no_single_exchange():
    turns = [("user", "Can Tomás start before the holidays?"), ("assistant", "Ask him for a start date."),
             ("user", "Sure."), ("assistant", "Anything else?"), ("user", "The start date matters most."),
             ("assistant", "Then ask about the start first.")]
    assert "start" not in [a.casefold() for a in _anchored(turns)]
    one = [("user", "Is Assam stronger than Darjeeling?"), ("assistant", "Yes, Assam is malty, Darjeeling light."),
           ("user", "Thanks! Assam it is.")]
    assert _anchored(one) == []


def test_the_anchor_holds_a_phrase_both_speakers_kept_to():
    turns = [("user", "The lag alerts are silent again."), ("assistant", "Which dashboard feeds them?"),
             ("user", "The old one."), ("assistant", "Then point it at the new metrics."),
             ("user", "Done, and the lag alerts fire now."), ("assistant", "Good, the lag alerts are back.")]
    assert "lag alerts" in _anchored(turns)


def test_the_anchor_finds_a_texted_name_and_a_noun_in_all_its_forms_but_no_verb():
    texted = [("user", "dev scored!!!"), ("assistant", "Amazing! What was the score?"), ("user", "3-2, his first goal"),
              ("assistant", "He must be over the moon."), ("user", "nah dev is never nervous lol"),
              ("assistant", "Good luck to Dev at the away match.")]
    assert _anchored(texted)[:1] == ["Dev"]
    owed = [("user", "Brightwave still hasn't paid the invoice."), ("assistant", "How much is outstanding?"),
            ("user", "4,200 euros, and we must choose a lawyer."), ("assistant", "Have you sent a reminder?"),
            ("user", "Two. I hate chasing, we must choose carefully."), ("assistant", "Good clients pay invoices on time."),
            ("user", "Then send the invoice again.")]
    anchored = [a.casefold() for a in _anchored(owed)]
    assert "invoice" in anchored and "choose" not in anchored, anchored


def test_the_anchor_holds_an_everyday_noun_said_at_the_start_and_the_end_but_not_beside_a_rarer_topic():
    moving = [("user", "The move is on Saturday and nothing's packed."), ("assistant", "How many rooms are left?"),
              ("user", "All of them lol"), ("assistant", "Start with the rooms you use least."),
              ("user", "Got forty boxes."), ("assistant", "Label each box."), ("user", "Kettle, mugs, chargers."),
              ("assistant", "Exactly the right list."), ("user", "Moving is the worst.")]
    assert _anchored(moving)[:1] == ["move"]
    novel = [("user", "I'm stuck in the middle of the novel again."), ("assistant", "What happens at that point?"),
             ("user", "She has just arrived in the city."), ("assistant", "What did she want at first?"),
             ("user", "To find her brother."), ("assistant", "Then the city should bring her closer."),
             ("user", "Writing it tonight. This novel might have a middle after all.")]
    assert _anchored(novel) == ["novel"]


def test_the_anchor_holds_a_grandparent_called_without_an_article_and_a_possessive_as_the_word():
    turns = [("user", "We cleared out Grandad's flat today."), ("assistant", "That's a hard day."),
             ("user", "Found his old watch in a tin."), ("assistant", "What a thing to find."),
             ("user", "It stopped at twenty past four."), ("assistant", "A watchmaker can look at it."),
             ("user", "I think grandad would have liked me wearing it.")]
    assert _anchored(turns)[:1] == ["Grandad"]


def test_the_flame_lists_no_parent_no_plural_of_a_name_and_no_shouted_word():
    turns = _window([("user", "Mam says Gran gave him an Omega."), ("assistant", "Old Omegas are worth servicing."),
                     ("user", "WAIT thats it??")])
    named = {name for name, _ in reflect.flame(turns, set())}
    assert named == {"Omega"}, named


def test_the_flame_lists_no_opener_label_quoted_word_or_shouting():
    turns = _window([
        ("user", "Tbh kinda done. Lol listen to me."),
        ("assistant", 'Shall I add "Buy boxes" to the list? Book club picked "Piranesi".'),
        ("user", "Standup: the Kafka migration is blocked."),
        ("user", "THE GRANT IS DUE FRIDAY AND NOTHING IS WRITTEN"),
        ("assistant", "Hand-tighten it first. The cleaner comes on Sundays. The X-ray will tell."),
    ])
    named = {name for name, _ in reflect.flame(turns, set())}
    assert not {"Tbh", "Lol", "Buy", "Standup", "GRANT", "DUE", "Hand-tighten", "Sundays", "X-ray"} & named, named
    assert {"Piranesi", "Kafka"} <= named


def test_the_anchor_and_the_flame_hold_their_figures_on_the_development_half():
    result = reflection_bench.measure("dev")
    assert result["anchor"]["precision"] >= 0.83 and result["anchor"]["recall"] >= 0.83, result["errors"]
    assert result["flame"]["precision"] >= 0.95 and result["flame"]["recall"] >= 0.95, result["errors"]


def test_the_anchor_and_the_flame_keep_their_figures_on_the_held_out_half():
    # a regression guard a little under the measured figures; its errors are not printed
    result = reflection_bench.measure("held-out")
    figures = {part: (result[part]["precision"], result[part]["recall"]) for part in ("anchor", "flame")}
    assert figures["anchor"][0] >= 0.55 and figures["anchor"][1] >= 0.65, figures
    assert figures["flame"][0] >= 0.90 and figures["flame"][1] >= 0.95, figures
