from souveraine.language.words import normal, stem, tokens


def test_unicode_letters_stay_whole():
    assert tokens("Tomás and Inês met João's brother") == ["tomás", "and", "inês", "met", "joão", "brother"]


def test_normal_straightens_quotes_and_spaces():
    assert normal("I’ll  “save”\nit") == "i'll \"save\" it"


def test_stem():
    assert stem("tests") == "test" and stem("fixing") == "fix" and stem("studies") == "study"
    assert stem("is") == "is"
