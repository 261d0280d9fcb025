"""Words as the heuristics compare them: a normal form, tokens, a crude stem.

Letters are Unicode letters ("Tomás", "Inês" stay whole); apostrophes are straightened.
"""

import re
from souveraine.language.patterns import lazy

_TOKEN = lazy(r"[^\W_]+(?:'[^\W_]+)?")


def normal(text: str) -> str:
    """Lower case, straight apostrophes and quotes, single spaces: the form the patterns read."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"').lower()
    return re.sub(r"\s+", " ", text).strip()


def stem(word: str) -> str:
    """A crude English stem, enough to match "tests" with "test" and "fixing" with "fix"."""
    for suffix in ("ing", "ies", "ied", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
    return word


def tokens(text: str) -> list[str]:
    """Words of ``text`` in normal form, possessives dropped ("mia's" → "mia")."""
    return [w.removesuffix("'s") for w in _TOKEN.findall(normal(text))]


def content_stems(text: str) -> set[str]:
    """The content words of ``text``, stemmed, common words and numbers left out: what two
    texts must share to be about the same thing (an ADR and a goal, two reports' points)."""
    from souveraine.recall.query import STOPWORDS

    return {stem(w) for w in tokens(text) if len(w) > 2 and w not in STOPWORDS and not w.isdigit()}
