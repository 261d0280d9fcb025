import sqlite3

import pytest

from souveraine.recall import query

NASTY = ['"', '""', '"unclosed phrase', "*", "book*", "(", ")", "((a)", "NEAR", "NEAR(a b, 2)", "AND", "OR", "NOT",
         "a AND", "OR b", "-", "-book", "--", ":", "body:book", "{title}: x", "^start", "a + b", "'", "\\", "%_",
         "🎉", "📚 book 🎉", "café naïve", "北京 书", "Ünïcödé", "\x00", "\u200b", "e-mail v2.1 jean-pierre",
         "a" * 2000, "; DROP TABLE docs; --", "col:umn*\"(NEAR)\""]


@pytest.fixture(scope="module")
def fts():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(title, body, context, links, tokenize='porter unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO fts VALUES ('', 'a café book about NEAR and OR, jean-pierre sent an e-mail 📚', '', '')")
    return conn


@pytest.mark.parametrize("text", NASTY)
def test_any_text_makes_a_query_fts5_accepts(fts, text):
    expression = query.match(text)
    if expression is not None:
        fts.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (expression,)).fetchall()
    person = query.phrase(text, ("title", "body", "links"))
    if person is not None:
        fts.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (query.both(expression, person),)).fetchall()


def test_syntax_words_are_searched_as_words(fts):
    assert fts.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query.match("NEAR"),)).fetchone() == (1,)
    assert fts.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query.match("cafe"),)).fetchone() == (1,)


def test_joined_words_become_a_phrase_and_a_star_a_prefix():
    assert query.match("jean-pierre") == '"jean pierre"'
    assert query.match('boo* "that book"') == '"boo"* OR "that book"'
    assert query.match("e-mail") == '"e mail"'


def test_common_words_are_dropped_unless_nothing_else_is_left():
    assert query.match("what did I say about the book") == '"book"'
    assert query.match("to be or not to be") == '"to" OR "be" OR "or" OR "not"'
    assert query.match("🎉 ... ***") is None
    assert not query.informative("what did I say") and query.informative("what did I say about books")


def test_a_possessive_is_searched_as_the_name_alone():
    assert query.match("How did Chloé's career progress?") == '"Chloé" OR "career" OR "progress"'
    assert query.match("Inès’s dinner") == '"Inès" OR "dinner"'
    assert query.match('"Chloé\'s career"') == '"Chloé s career"'        # a quoted phrase is kept as typed
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE fts USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
    fts.execute("INSERT INTO fts VALUES ('Chloé passed her exams')")
    assert fts.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query.match("Chloé's exams"),)).fetchone() == (1,)
