from pathlib import Path

import pytest

from souveraine.tempos import promises

DATA = Path(__file__).resolve().parent.parent / "data" / "promises.tsv"


def labelled():
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        label, kind, category, sentence = line.split("\t")
        rows.append((label == "1", kind, category, sentence))
    return rows


def test_the_labelled_set_is_large_and_varied():
    rows = labelled()
    assert len(rows) >= 200
    assert len({sentence for *_, sentence in rows}) == len(rows), "a sentence is labelled twice"
    negatives = {category for positive, _, category, _ in rows if not positive}
    assert {"non-committal", "negation", "reported", "question", "conditional", "past"} <= negatives
    assert {kind for positive, kind, _, _ in rows if positive} == set(promises.KINDS)


def test_precision_and_recall_of_promise_detection(capsys):
    rows = labelled()
    tp = fp = fn = kinds = 0
    for positive, kind, _, sentence in rows:
        found = [(p.kind, p.verb) for p in promises.find(sentence)][:1]
        found = found[0] if found else None
        tp += bool(found) and positive
        fp += bool(found) and not positive
        fn += positive and not found
        kinds += bool(found) and positive and found[0] == kind
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    with capsys.disabled():
        print(f"\npromise detection on {len(rows)} sentences: precision {precision:.3f}, recall {recall:.3f}, "
              f"kind right {kinds / tp:.3f}")
    assert precision >= 0.9
    assert recall >= 0.9


@pytest.mark.parametrize("sentence", [
    "I'll think about it.", "I won't save that.", "She said she'd remember.", "Should I save that?",
    "If you want, I'll save it.", "I saved it.",
])
def test_hard_negatives(sentence):
    assert promises.read(sentence) is None


def test_find_reads_every_sentence_but_code():
    text = "Sure.\n\n```\n# I'll commit that\n```\nI'll remember that your cat is called Miso. Then I'll push the branch!"
    found = promises.find(text)
    assert [(p.kind, p.verb) for p in found] == [("save", "remember"), ("commit", "push")]
    assert found[0].content == "your cat is called Miso"
    assert text[found[0].end:].strip().startswith("Then I'll push")


@pytest.mark.parametrize("verb, past", [("fix", "fixed"), ("update", "updated"), ("write", "wrote|written"),
                                        ("ship", "shipped"), ("tidy", "tidied"), ("clean up", "cleaned up")])
def test_past_forms(verb, past):
    assert promises.past(verb) == past


def test_a_promise_is_kept_by_its_own_deed_not_by_another():
    promise = "I'll fix the failing tests next."
    assert promises.keeps("do", "fix", promise, "I fixed the failing test; all green.")
    assert not promises.keeps("do", "fix", promise, "I fixed the README.")
    assert not promises.keeps("do", "fix", promise, "I haven't fixed the failing tests yet.")
    assert not promises.keeps("do", "fix", promise, "Have I fixed the failing tests?")


def test_tool_calls_keep_promises():
    assert promises.keeps("commit", "commit", "I'll commit that.", "", ["Bash git commit -am 'x'"])
    assert promises.keeps("save", "remember", "I'll remember that.", "", ["souveraine remember 'Lea'"])
    assert not promises.keeps("commit", "commit", "I'll commit that.", "", ["Read README.md"])
    assert promises.keeps("do", "update", "I'll update the file.", "", ["Edit config.toml"], same_turn=True)
    assert not promises.keeps("do", "update", "I'll update the file.", "", ["Edit config.toml"])


def test_follow_ups_close_on_their_own_subject():
    landlord = "I'll follow up with the landlord about the heating."
    said = "As promised, I followed up with the landlord: the heating is fixed Tuesday."
    assert promises.keeps("follow_up", "follow up", landlord, said)
    assert not promises.keeps("follow_up", "get back", "I'll get back to you on the pricing.", said)
