"""Words as the heuristics compare them: a normal form, tokens, a crude stem.

Letters are Unicode letters ("Tomás", "Inês" stay whole); apostrophes are straightened.
"""

import re
from souveraine.language import patterns
from souveraine.language.patterns import lazy

_TOKEN = lazy(r"[^\W_]+(?:'[^\W_]+)?")


def normal(text: str) -> str:
    """Lower case, straight apostrophes and quotes, single spaces: the form the patterns read."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"').lower()
    return re.sub(r"\s+", " ", text).strip()


# How people text: "ill send it tmrw", "lemme check", "will ping u". Only forms that read one
# way in an assistant's or a user's message ("ill" opening a sentence before a verb, "u" alone).
_TEXTING = (
    (patterns.compile(r"^(?:(k|kk|ok|okay|sure|yep|yeah|right),? )?(?:ill|i'll|il) (?!be\b|health|feel|with|since|for|and)"),
     lambda m: f"{m[1] + ', ' if m[1] else ''}i'll "),
    (patterns.compile(r"^(?:(?:im|i'm) )?(?:gonna|going to)\b"), lambda m: "i'm going to"),
    (patterns.compile(r"\blemme\b"), lambda m: "let me"),
    (patterns.compile(r"^(?:k|kk),? "), lambda m: "ok, "),
)
_YOU = patterns.compile(r"(?<![\w'’-])(u|ur)(?![\w'’.-])")    # written in lower case: "Plan U" is no one


def spoken(text: str) -> str:
    """A normal form with texting spelled out: "ill ping u tmrw" → "i'll ping you tmrw"."""
    text = normal(_YOU.sub(lambda m: "you" if m[1] == "u" else "your", text))
    for pattern, spelled in _TEXTING:
        text = pattern.sub(spelled, text)
    return text


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
