"""The word forms Porter stemming keeps apart, as the shipped table gives them."""

import sqlite3

from souveraine.language import lexicon


def _porter(word: str) -> str:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(w, tokenize='porter unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, row)")
    conn.execute("INSERT INTO t VALUES (?)", (word,))
    return conn.execute("SELECT term FROM v").fetchone()[0]


def test_irregular_forms_lead_to_each_other():
    assert lexicon.inflections("bought") == ("buy",)
    assert lexicon.inflections("buy") == ("bought",)
    assert set(lexicon.inflections("went")) >= {"go", "gone"}
    assert lexicon.inflections("children") == ("child",)
    assert "think" in lexicon.inflections("thought")


def test_words_stemming_already_joins_have_none():
    assert lexicon.inflections("bakery") == ()
    assert lexicon.inflections("equipment") == ()
    assert lexicon.inflections("ought") == ()          # "bought" holds it, but not as a word
    assert lexicon.inflections("") == ()


def test_every_form_given_stems_apart_from_the_word_asked():
    for word in ("bought", "met", "left", "sold", "mice", "taught", "fed"):
        forms = lexicon.inflections(word)
        assert forms, word
        assert all(_porter(form) != _porter(word) for form in forms), (word, forms)
