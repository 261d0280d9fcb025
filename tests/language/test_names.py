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
