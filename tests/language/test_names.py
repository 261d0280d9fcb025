"""People in text: Unicode names, titles, possessives, links, and no sentence openers or products."""

import pytest

from bench import people as bench
from souveraine.language import names


@pytest.mark.parametrize("text,expected", [
    ("called Inês about the cake", ["Inês"]),
    ("ask Tomás if he still has the drill", ["Tomás"]),
    ("As promised, here is the summary.", []),
    ("Dr. Amara Okafor moved the appointment.", ["Amara Okafor"]),
    ("Léa's flight lands at nine.", ["Léa"]),
    ("Per [[people/hortense|Hortense]], the lease is fine.", ["Hortense"]),
    ("I linked [[people/alice]] to the note.", ["Alice"]),
    ("Airflow kept crashing, Consider cron. Random thought: Safe travels!", []),
    ("Mrs. O'Brien next door waters the plants.", ["O'Brien"]),
    ("Łukasz and Søren fixed the boiler.", ["Łukasz", "Søren"]),
    ("Uncle Femi takes two sugars.", ["Femi"]),
    ("The Thai place on Mill Road is open.", []),
    ("Lisbon was lovely.", []),
    ("`Alice` is a variable here.", []),
    ("I met Tomás and Dr. Amara Okafor at the market.", ["Tomás", "Amara Okafor"]),
    ("The flat is on Rua dos Fanqueiros, near São Bento.", []),
    ("We ate at La Tasca Nova, then walked to Santa Justa.", []),
    ("Her flight from Rotterdam gets in late.", []),
    ("We're moving to Nairobi; a visa for Kenya takes weeks.", []),
    ("I spent a week in Florence with Sofia.", ["Sofia"]),
    ("Florence said she'd bring the wine.", ["Florence"]),
    ("Get a Lenovo or a Dell, either works.", []),
    ("Gardening is my new hobby. Morning, Rahel!", ["Rahel"]),
    ("Invoicing runs on the first Monday.", []),
    ("The kids sleep at Constance's house on Fridays.", ["Constance"]),
    ("Dolores from the library called back.", ["Dolores"]),
    ("We finished watching Amélie last night.", []),
    ("Florence line trains are delayed again.", []),
    ("Is Harrods open on Sundays?", []),
    ("The pharmacy is in São João da Madeira, not Porto.", []),
    ("My nephew Teodor wants a bike.", ["Teodor"]),
    ("Priscilla and I signed the lease.", ["Priscilla"]),
    ("Osei from accounts signed it off.", ["Osei"]),
    ("Dona Albertina keeps the spare key.", ["Albertina"]),
    ("We're sticking with Zoho for invoices.", []),
])
def test_people_are_found_and_common_words_are_not(text, expected):
    assert [p.name for p in names.people(text)] == expected


def test_a_title_is_kept_in_how_a_person_is_shown_and_spans_point_at_the_name():
    [person] = names.people("I saw Dr. Amara Okafor's note.")
    assert (person.shown, person.how, "I saw Dr. Amara Okafor's note."[person.start:person.end]) == (
        "Dr. Amara Okafor", "title", "Amara Okafor")
    assert names.slug("Inês Álvares") == "ines-alvares"


def test_known_people_are_found_without_other_evidence():
    assert [p.name for p in names.people("Quillon fixed it.", known={"quillon"})] == ["Quillon"]


def test_the_labelled_development_half_holds_its_targets():
    result = bench.measure("dev")
    assert result["mentions"] >= 150 and result["precision"] >= 0.95 and result["recall"] >= 0.90, result["errors"]


def test_the_held_out_half_keeps_its_figures():
    # a regression guard a little under the measured 0.954 / 0.912; its errors are not printed
    result = bench.measure("held-out")
    assert result["precision"] >= 0.94 and result["recall"] >= 0.90, (result["precision"], result["recall"])


def corpus() -> list[str]:
    """Every turn the project's labelled sets hold: people, fold, chatter, planted facts, the
    judgement sets and the written conversations of recall."""
    import csv
    import json

    from tests.support import ROOT

    texts = []
    for path in [*(ROOT / "bench" / "data").glob("*.tsv"), *(ROOT / "tests" / "data").rglob("*.tsv")]:
        with open(path, encoding="utf-8", newline="") as handle:
            texts += [cell for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
                      if row and not row[0].startswith("#") for cell in row if len(cell) > 3]
    for path in (ROOT / "tests" / "data").rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            texts += [v for v in json.loads(line).values() if isinstance(v, str) and len(v) > 3] if line.strip() else []
    for path in (ROOT / "bench" / "recall_set").glob("*.txt"):
        texts += [line[3:] for line in path.read_text(encoding="utf-8").splitlines() if line[:3] in ("U: ", "A: ")]
    return texts


def test_the_fast_path_finds_exactly_what_the_full_reading_finds(monkeypatch):
    texts = corpus()
    fast = [names.people(text, known={"quillon"}) for text in texts]
    skipped = sum(not names._maybe(text, {"quillon"}) for text in texts)
    monkeypatch.setattr(names, "_maybe", lambda text, known: True)
    full = [names.people(text, known={"quillon"}) for text in texts]
    assert len(texts) > 3000 and skipped > len(texts) // 4
    assert [(t, f) for t, f, g in zip(texts, fast, full) if f != g] == []


def test_a_text_with_no_possible_name_loads_neither_regex_nor_the_names():
    import subprocess
    import sys

    script = ("import sys\nfrom souveraine.language import lexicon, names\n"
              "assert names.people('What about item 3? I will check tomorrow, ok?') == []\n"
              "assert names.people('thanks, that works for me!') == []\n"
              "assert 'regex' not in sys.modules and 'pysbd' not in sys.modules, 'loaded'\n"
              "assert lexicon._given_text.cache_info().currsize == 0, 'names read'\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_name_looked_up_by_search_is_one_of_the_set(monkeypatch):
    import random

    from souveraine.language import lexicon

    names, words = lexicon._given()
    lexicon._given.cache_clear()
    monkeypatch.setattr(lexicon, "_looked", 0)
    monkeypatch.setattr(lexicon, "SET_AFTER", 10**9)
    some = random.Random(7).sample(sorted(names), 1500)
    probes = some + sorted(words) + [n.lower() for n in some[:200]] + [n[:-1] for n in some[:200]] + \
        [n + "a" for n in some[:200]] + ["", "\t", "word", "A", min(names), max(names), max(names) + "z", "\uffff"]
    assert [w for w in probes if lexicon.is_given_name(w) != (w in names)] == []
    assert [w for w in probes if lexicon.is_given_word(w) != (w in words)] == []
    assert lexicon._given.cache_info().currsize == 0      # no set was built: every answer was a search
    monkeypatch.setattr(lexicon, "SET_AFTER", lexicon._looked + 3)
    assert lexicon.is_given_name("Tomás") and lexicon.is_given_word("Will") and not lexicon.is_given_name("Tomx")
    assert lexicon._given.cache_info().currsize == 0
    assert lexicon.is_given_name("Inês") and lexicon._given.cache_info().currsize == 1   # a process that asks often reads them all


def test_the_shipped_names_mark_the_ones_that_are_everyday_words():
    from souveraine.language import lexicon

    assert {"Tomás", "Inês", "Ngozi", "Łukasz", "Peter"} <= lexicon.given_names()
    assert {"Can", "Brain", "Said", "Will"} <= lexicon.given_words() and "Peter" not in lexicon.given_words()
    assert names.ambiguous("Brain") and names.ambiguous("May") and not names.ambiguous("Tomás")
    assert {"random", "consider", "mild"} <= lexicon.english_words()


@pytest.mark.parametrize("text,expected", [
    ("Per [[people/hortense#Lease|Hortense]], fine.", [("Hortense", "link")]),
    ("See [[people/ana-lucia]] and ![[people/bob]].", [("Ana Lucia", "link"), ("Bob", "link")]),
    ("Not a link: `[[people/alice]]`, nor \\[[people/carol]].", []),
    ("A [[projects/Kafka Migration]] note, with Tomás.", [("Tomás", "given name")]),
])
def test_links_are_read_by_commonmark_never_in_code_and_masked_for_the_name_rules(text, expected):
    assert [(p.name, p.how) for p in names.people(text)] == expected


def test_links_found_as_the_pattern_found_them_on_the_project_sets():
    # The pattern the parser replaced, on every turn of the development set that holds a link
    # (and on links in other places): the same people at the same offsets.
    import re

    def by_pattern(text):
        return [(m.start(), m.end(), (m[2] or m[1].rsplit("/", 1)[-1].replace("-", " ").title()).strip())
                for m in re.finditer(r"\[\[people/([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]", text)]

    texts = [text for _, text in bench.labelled("dev") if "[[" in text]
    texts += ["Lunch with [[people/inês-costa|Inês]] and [[people/tomás]].", "- [[people/amara-okafor#Notes]] called",
              "> [[people/siobhán|Siobhán]] said so", "# About [[people/łukasz]]"]
    for text in texts:
        assert [(p.start, p.end, p.name) for p in names.people(text) if p.how == "link"] == by_pattern(text), text
