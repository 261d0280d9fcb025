from souveraine.language.words import normal, spoken, stem, tokens


def test_unicode_letters_stay_whole():
    assert tokens("Tomás and Inês met João's brother") == ["tomás", "and", "inês", "met", "joão", "brother"]


def test_normal_straightens_quotes_and_spaces():
    assert normal("I’ll  “save”\nit") == "i'll \"save\" it"


def test_stem():
    assert stem("tests") == "test" and stem("fixing") == "fix" and stem("studies") == "study"
    assert stem("is") == "is"


def test_texting_is_spelled_out_where_it_reads_one_way():
    assert spoken("ill ping u tmrw") == "i'll ping you tmrw"
    assert spoken("k, lemme check") == "ok, let me check"
    assert spoken("Gonna note that") == "i'm going to note that"
    assert spoken("Ill health runs in the family") == "ill health runs in the family"
    assert spoken("Plan U is fine") == "plan u is fine"
