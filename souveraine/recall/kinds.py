"""Documents that name the kind of thing a question asks for (language.questions): a person
for "who", a place for "where". "Who covered a shift for her when the course and nights
clashed?" is answered by "Joana swapped with me", whose only link to the question is that it
names someone.

A document names a person when one of its capitalised words (the index's ``names`` table) is
a given name that is not also an everyday word ("May", "Will"), and a place when one is a
country or city (language.lexicon); a name the query itself holds does not count, since every
hit would hold it.
"""

from functools import lru_cache

from souveraine.recall import sources


def naming(conn, ids: list[int], kind: str, asked: set[str]) -> set[int]:
    """Those of ``ids`` that name a ``kind`` ("person" or "place") other than the ``asked`` names (folded)."""
    if not ids or kind not in ("person", "place"):
        return set()
    wanted = _people() if kind == "person" else _places()
    marks = ", ".join("?" * len(ids))
    return {doc for doc, name in conn.execute(f"SELECT doc, name FROM names WHERE doc IN ({marks})", ids)
            if name in wanted and name not in asked}


@lru_cache(maxsize=1)
def _people() -> frozenset[str]:
    from souveraine.language import lexicon

    common = lexicon.given_words()
    return frozenset(sources.fold(n) for n in lexicon.given_names() if n not in common)


@lru_cache(maxsize=1)
def _places() -> frozenset[str]:
    from souveraine.language import lexicon

    return frozenset(sources.fold(n) for n in lexicon.places())
