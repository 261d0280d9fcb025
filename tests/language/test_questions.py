"""What a question asks for: a person, a place, or neither."""

import pytest

from souveraine.language.questions import asks_for


@pytest.mark.parametrize("text, kind", [
    ("Who covered a shift for her when the course and nights clashed?", "person"),
    ("whom did Hugo guide to the field", "person"),
    ("Whose dog joined the clinic staff?", "person"),
    ("What did she buy, and who was it for?", "person"),
    ("Which friends came to the wedding?", "person"),
    ("Where will Aiko spend the winter holidays?", "place"),
    ("What is Valentina studying, and where?", "place"),
    ("Which cities has the company launched in?", "place"),
    ("What did the oven need over the months?", ""),
    ("Somewhere nobody knows", ""),
    ("", ""),
])
def test_a_question_asks_for_a_person_a_place_or_neither(text, kind):
    assert asks_for(text) == kind
