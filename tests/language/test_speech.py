from datetime import date, datetime

import pytest

from souveraine.language import speech

MONDAY = datetime(2026, 8, 3, 10, 0)


@pytest.mark.parametrize("sentence, asked", [
    ("Shall I save that?", True), ("What's the weather usually like", True), ("Is it open on Sunday", True),
    ("I'll save that.", False), ("What a day.", False), ("How lovely!", False),
])
def test_questions(sentence, asked):
    assert speech.is_question(sentence) is asked


@pytest.mark.parametrize("sentence, supposed", [
    ("If you send me the file, I'll take a look.", True), ("Once you confirm, I'll book it.", True),
    ("Say the word and I'll set it up.", True), ("I'll check if it's up.", False), ("I'll save it.", False),
])
def test_hypotheticals(sentence, supposed):
    assert speech.is_hypothetical(sentence) is supposed


def test_quotes_and_code_are_blanked_keeping_length():
    sentence = 'You said "I\'ll remember that" and ran `save()`.'
    plain = speech.unquote(sentence)
    assert len(plain) == len(sentence) and "remember" not in plain and "save" not in plain
    assert speech.quoted(sentence) == ["I'll remember that", "save()"]


def test_negation_and_reported_speech():
    assert speech.is_negated("I won't commit it") and speech.is_negated("never again")
    assert not speech.is_negated("I'll commit it")
    assert speech.is_reported("He said he") and speech.is_reported("Marta promised she")
    assert not speech.is_reported("Sure,")


def test_code_lines():
    assert speech.is_code("$ git commit -m x") and speech.is_code("def save():")
    assert not speech.is_code("I'll commit it tonight.")


def test_the_users_own_reminder_request():
    found = speech.request("Thanks! Remind me to call Mum on Sunday.", MONDAY)
    assert found.what == "call Mum" and found.when.day == date(2026, 8, 9)
    assert speech.request("Could you remind me about the MOT?", MONDAY).when is None
    assert speech.request("Don't remind me about it.", MONDAY) is None
    assert speech.request("She asked me to remind her.", MONDAY) is None
    assert speech.request("The weather is nice.", MONDAY) is None
