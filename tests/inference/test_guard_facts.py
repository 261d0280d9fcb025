"""A model's line that reuses its turn's words to say something else is refused."""

from souveraine.inference import guard
from souveraine.store import notes
from souveraine.tempos import archive
from tests.inference.fake_model import FakeModel, answer
from tests.tempos.conversation import configure, say

WINDOW = {"t1": "We decided: prune the Bramley apple trees in February, not November.",
          "t2": "Lea loves her coffee black, every morning.",
          "t3": "The cleaner comes twice a week, on Mondays and Thursdays."}


def test_a_line_asserting_what_its_turn_rules_out_is_refused():
    assert guard.judge("The Bramley apple trees will be pruned in November ^t1", WINDOW)[0] == \
        "asserting what the cited turns rule out"
    assert guard.judge("The Bramley trees are pruned in February, not November ^t1", WINDOW)[0] is None


def test_a_number_in_words_must_stand_in_the_cited_turn():
    assert guard.judge("The Bramley apple trees will be pruned every two years ^t1", WINDOW)[0] == \
        "holding figures the cited turns do not"
    assert guard.judge("The cleaner comes three times a week ^t3", WINDOW)[0] == "holding figures the cited turns do not"
    assert guard.judge("The cleaner comes twice a week, Mondays and Thursdays ^t3", WINDOW)[0] is None


def test_a_fact_naming_a_rare_thing_its_turn_never_says_is_refused_everyday_paraphrase_is_not():
    assert guard.judge("Lea loves cinnamon and coffee ^t2", WINDOW, facts=True)[0] == "naming what the cited turns do not"
    assert guard.judge("Tomás prunes the Bramley trees in February ^t1", WINDOW, facts=True)[0] is not None
    assert guard.judge("Lea drinks her coffee black every morning ^t2", WINDOW, facts=True)[0] is None
    assert guard.judge("Lea loves cinnamon and coffee ^t2", WINDOW)[0] is None     # a reflection's reading is no fact


def test_the_archivist_never_commits_a_contradiction_of_its_turn(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    blocks = say(memory, "2026-11-30T09:00:00", [
        ("user", "We decided to prune the Bramley apple trees in February, not November."),
        ("assistant", "February it is, then."),
        ("user", "Lea loves her coffee black, every morning."),
        ("assistant", "Noted: black coffee for Lea."),
    ])
    essence = (f"## Decisions\n- The Bramley apple trees will be pruned in November ^{blocks[0]}\n"
               f"## Preferences\n- Lea loves cinnamon and coffee ^{blocks[2]}\n"
               f"- Lea drinks her coffee black every morning ^{blocks[2]}\n")
    with FakeModel([answer(essence)]) as server:
        configure(memory, "inference", endpoint=server.base, model="small")
        result = archive.run(memory, force=True)
    body = notes.read(memory.root / result["path"]).body
    assert "pruned in November" not in body and "cinnamon" not in body
    assert "February" in body
