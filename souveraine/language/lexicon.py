"""The word lists the language module ships (souveraine/language/data/, made by tools/language_data.py).

Each is read once, when a text first needs it, and kept for the process: the given names
(~24,000, from Faker's 86 locales) when a text holds a capitalised word that could be one,
the everyday English words (~41,000, SCOWL size 35) and the places (~12,000, GeoNames) only
where a tempo asks whether a capital is a common word or a place, the words of strong
feeling (~1,500, VADER) when the Fold weighs a turn, how common a word is in English (the
25,000 commonest, wordfreq) where a topic must be more than an everyday word, the English
word forms Porter stemming does not join (~1,100 verbs and nouns, LemmInflect) when recall
reads a query.
"""

import zlib
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def _gunzip(name: str) -> str:
    """A gzip file's text: zlib reads its one member (the gzip module costs a recall 3 M instructions to import)."""
    return zlib.decompress((DATA / name).read_bytes(), wbits=31).decode("utf-8")


def _lines(name: str) -> list[str]:
    return _gunzip(name).split("\n")


@lru_cache(maxsize=1)
def _given_text() -> str:
    return _gunzip("given-names.tsv.gz")


@lru_cache(maxsize=1)
def _given() -> tuple[frozenset[str], frozenset[str]]:
    names, words = set(), set()
    for row in _given_text().split("\n"):
        name, _, flag = row.partition("\t")
        if name:
            names.add(name)
            if flag in ("word", "place"):
                words.add(name)
    return frozenset(names), frozenset(words)


SET_AFTER = 500   # lookups by search, before a process reads every name into a set


_looked = 0


def _given_row(word: str) -> str | None:
    """``word``'s row in the names file, found by halving it (the rows are sorted by name), or
    None. Reading the 24,000 names into a set costs about 10 ms, paid by every persist whose
    turn holds a capitalised word; a search costs microseconds. A process that asks often
    (a week's digest) gets the set after ``SET_AFTER`` lookups."""
    global _looked
    text = _given_text()
    low, high = 0, len(text)
    while low < high:
        middle = (low + high) // 2
        start = text.rfind("\n", low, middle) + 1 or low
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        row = text[start:end]
        name = row.partition("\t")[0]
        if name == word:
            return row
        if name < word:
            low = end + 1
        else:
            high = start
    return None


def is_given_name(word: str) -> bool:
    """Is ``word``, as written, one of ``given_names()``?"""
    global _looked
    if _looked >= SET_AFTER or _given.cache_info().currsize:
        return word in _given()[0]
    _looked += 1
    return bool(word) and _given_row(word) is not None


def is_given_word(word: str) -> bool:
    """Is ``word``, as written, one of ``given_words()``?"""
    global _looked
    if _looked >= SET_AFTER or _given.cache_info().currsize:
        return word in _given()[1]
    _looked += 1
    row = _given_row(word) if word else None
    return row is not None and row.partition("\t")[2] in ("word", "place")


def given_names() -> frozenset[str]:
    """Every first name, as written ("Tomás", "Ngozi", "Jean-Paul")."""
    return _given()[0]


def given_words() -> frozenset[str]:
    """The first names that are also everyday English words or places ("Will", "Can", "Brain",
    "Kenya"), unless they are commoner first names in the US census ("Peter", "Maria")."""
    return _given()[1]


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Everyday English words, lower case ("random", "consider", "enjoyed")."""
    return frozenset(w for w in _lines("english-words.txt.gz") if w)


@lru_cache(maxsize=1)
def places() -> frozenset[str]:
    """Countries, continents, US states and cities of 50,000 people or more, as written ("Accra",
    "Santa Maria")."""
    return frozenset(w for w in _lines("places.txt.gz") if w)


@lru_cache(maxsize=1)
def feelings() -> frozenset[str]:
    """Words that say a strong feeling, lower case ("furious", "heartbroken", "thrilled"): VADER's
    lexicon, mean valence -2.0 or below, or 2.5 or above."""
    return frozenset(w for w in _lines("feelings.txt.gz") if w)


@lru_cache(maxsize=1)
def _frequencies() -> dict[str, float]:
    rows = (row.partition("\t") for row in _lines("word-frequencies.tsv.gz"))
    return {word: float(zipf) for word, _, zipf in rows if word}


def zipf(word: str) -> float:
    """How common ``word`` (lower case) is in English, on the Zipf scale: 7.7 for "the", 5 for a word
    met once in ten thousand ("allow"), 0 for one rarer than the 25,000 commonest."""
    return _frequencies().get(word, 0.0)


EVERYDAY = 5.0     # a word at least this common ("start", "time", "code") is everyday, no topic


def everyday(word: str) -> bool:
    """Is ``word`` (lower case) among the thousand or so commonest English words?"""
    return zipf(word) >= EVERYDAY


@lru_cache(maxsize=1)
def _inflections() -> str:
    return "\n" + _gunzip("inflections.txt.gz")


@lru_cache(maxsize=256)
def inflections(word: str) -> tuple[str, ...]:
    """For a lower-case English verb's or noun's form, one form of each of its other Porter
    stems: "bought" → ("buy",), "buy" → ("bought",), "went" → ("go", "gone", "goes"): the
    forms stemming does not join (LemmInflect's table, tools/inflections_data.py). Looked up
    in the table's text rather than read into a dict: a query asks for a few words."""
    import re

    table = _inflections()
    others: list[str] = []
    for found in re.finditer(re.escape(word) + r"(?=[\t \n])", table):
        if table[found.start() - 1] not in "\t \n":
            continue
        line = table[table.rfind("\n", 0, found.start()) + 1:table.find("\n", found.end())]
        classes = [c.split(" ") for c in line.split("\t")]
        others += [c[0] for c in classes if word not in c and c[0] not in others]
    return tuple(others)
