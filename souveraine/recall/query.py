"""Words typed by a person or an agent, turned into an FTS5 query that cannot fail to parse.

Every term goes to FTS5 as a double-quoted string of word characters only, so its syntax
(``"``, ``*``, ``(``, ``:``, ``-``, ``^``, ``AND``, ``OR``, ``NOT``, ``NEAR``) is always taken
as plain words. Two things are kept from what was typed: a ``"quoted phrase"`` and a trailing
``*`` for a prefix. Words joined by punctuation (``jean-pierre``, ``e-mail``, ``v2.1``) become
a phrase, except a possessive ``'s`` (``Chloé's`` is searched as ``Chloé``). Terms are OR-ed: BM25 ranks the notes holding more of them, and more of the rarer
ones, first. Common English words are dropped unless nothing else is left; recall adds the forms of a
word that Porter stemming keeps apart (``inflected``: "buy" also finds "bought").
"""

import re
import unicodedata

from souveraine.record import Frozen

# Question words and glue: they match everything and rank nothing.
STOPWORDS = frozenset("""
a about above after again all am an and any are as at be because been before being below between
both but by can could did do does doing done during each few for from further had has have having he
her here hers herself him himself his how i if in into is it its itself just me more most my myself
no nor not now of off on once only or other our ours out over own same she should so some such than
that the their theirs them then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself
tell say said told remember recall anything something thing things know think thought ever
get gets getting got go goes going gone went make made really also still happen happens happened happening
s t d ll m re ve
""".split())

_WORD = re.compile(r"[^\W_]+")
_CHUNK = re.compile(r'"([^"]*)"?|(\S+)')
_POSSESSIVE = re.compile(r"(?<=[^\W_])['’]s\b")      # "Chloé's career": Chloé's, as Chloé is written alone


class Term(Frozen):
    __slots__ = _fields = ("words", "prefix")

    def __init__(self, words: tuple[str, ...], prefix: bool = False):
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "prefix", prefix)

    def fts(self) -> str:
        return '"' + " ".join(self.words) + '"' + ("*" if self.prefix else "")


def terms(text: str) -> list[Term]:
    """The terms of ``text``, common words dropped when others remain."""
    found = list(_parse(unicodedata.normalize("NFKC", text or "")))
    kept = [t for t in found if _kept(t)]
    return kept or found


def inflected(found: list[Term]) -> list[Term]:
    """The terms, then for each lower-case word its forms that Porter stemming keeps apart
    (``lexicon.inflections``): "what did he buy?" also asks for "bought", "children" for
    "child". Each joins as a term of its own, so it weighs as its own rarity says."""
    from souveraine.language import lexicon

    out, seen = list(found), {t.words[0] for t in found if len(t.words) == 1}
    for term in found:
        word = term.words[0]
        if len(term.words) != 1 or term.prefix or not word.islower():
            continue
        for form in lexicon.inflections(word):
            if form not in seen and form not in STOPWORDS:
                seen.add(form)
                out.append(Term((form,)))
    return out


def words(text: str) -> list[str]:
    """The words of a text, as the index's tokenizer splits them (accents kept)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text or ""))


def informative(text: str) -> bool:
    """Whether ``text`` holds a word that is not a common one."""
    return any(_kept(t) for t in _parse(unicodedata.normalize("NFKC", text or "")))


def match(text: str) -> str | None:
    """An FTS5 MATCH expression for ``text``; None when it holds no word at all."""
    return expression(terms(text))


def expression(found: list[Term]) -> str | None:
    """Terms OR-ed into one MATCH expression; None for none."""
    return " OR ".join(t.fts() for t in _unique(found)) or None


def phrase(text: str, columns: tuple[str, ...] = ()) -> str | None:
    """The words of ``text`` as one phrase, optionally limited to ``columns``."""
    words = tuple(_WORD.findall(unicodedata.normalize("NFKC", text or "")))
    if not words:
        return None
    scope = "{" + " ".join(columns) + "} : " if columns else ""
    return scope + Term(words).fts()


def both(first: str | None, second: str | None) -> str | None:
    """Two MATCH expressions that must both hold."""
    if first and second:
        return f"({first}) AND ({second})"
    return first or second


def _kept(term: Term) -> bool:
    return len(term.words) > 1 or term.words[0].lower() not in STOPWORDS


def _parse(text: str):
    for quoted, bare in _CHUNK.findall(text):
        chunk = quoted if quoted else _POSSESSIVE.sub("", bare)
        found = tuple(_WORD.findall(chunk))
        if found:
            yield Term(found, prefix=bool(bare) and bare.rstrip("\"'.,;:!?)]}").endswith("*"))


def _unique(found: list[Term]) -> list[Term]:
    seen, out = set(), []
    for term in found:
        key = (tuple(w.lower() for w in term.words), term.prefix)
        if key not in seen:
            seen.add(key)
            out.append(term)
    return out
