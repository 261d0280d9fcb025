"""Sentences and words, as the subconscious's heuristics read them."""

import re

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_END = re.compile(r"[.!?]+[\"'”’)]*(?=\s|$)|\n")


def sentences(text: str) -> list[tuple[str, int]]:
    """Sentences with their end offsets in ``text``; code blocks are not speech.

    A sentence ends at ., ! or ? followed by a space (so "10.0.0.5" and "e.g" stay
    whole), or at a line's end.
    """
    text = _FENCE.sub(lambda m: " " * len(m[0]), text)
    found, start = [], 0
    for end in [m.end() for m in _END.finditer(text)] + [len(text)]:
        sentence = text[start:end].strip(" \t\n-*>#")
        if sentence:
            found.append((sentence, end))
        start = end
    return found


def normal(sentence: str) -> str:
    """Lower case, straight apostrophes, single spaces: the form the patterns read."""
    text = sentence.replace("’", "'").replace("‘", "'").lower()
    return re.sub(r"\s+", " ", text).strip()


def stem(word: str) -> str:
    """A crude English stem, enough to match "tests" with "test" and "fixing" with "fix"."""
    for suffix in ("ing", "ies", "ied", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
    return word


def tokens(text: str) -> list[str]:
    """Words of ``text`` in normal form, possessives dropped ("mia's" → "mia")."""
    return [w.removesuffix("'s") for w in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", normal(text))]
