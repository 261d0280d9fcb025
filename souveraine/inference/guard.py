"""What a model's line must be before the memory keeps it.

A local model, a small one above all, writes fluent lines that are not so: invented facts,
turns that never happened, impossible times, ids copied from nowhere. A line is kept only
when it reads as a point (not a transcript turn), cites by ``^block-id`` at least one turn
of the window it was shown, shares content words with what it cites, and every figure it
holds (a time, a date, a number, in figures or in words) stands in a turn it cites; it
asserts nothing the cited turn rules out ("in February, not November" cannot become "in
November"); and a line of facts (``facts=True``, the archivist's) names no rare word
that none of its turns says ("cinnamon" where the turn spoke of coffee). The caller decides
what to do with an answer most of whose lines fail (the tempos fall back to their
extractive method).
"""

import re
from dataclasses import dataclass, field

_ID = re.compile(r"\^([A-Za-z0-9][A-Za-z0-9-]*)")
_TRANSCRIPT = re.compile(
    r"^\s*(?:\[\^?[A-Za-z0-9-]+\s*·|\[?\^[A-Za-z0-9-]+\]?\s+(?:user|assistant|human|ai|system)\s*:|\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[?\d\d:\d\d(?::\d\d)?\]?\s*(?:·|-|—)"
    r"|(?:\*\*)?(?:user|assistant|human|ai|system|reflection)(?:\*\*)?\s*[:·\]]|round\s+\d+|turn\s+\d+\s*[:·])",
    re.IGNORECASE)
_CITED = re.compile(r"\s*[\[(]\s*\^[A-Za-z0-9][A-Za-z0-9-]*[^\[\]()\n]*[\])]")
_FIGURE = re.compile(r"\d+(?:[.,:h]\d+)*")
_NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
                                                      "thousand": "1000", "twice": "2", "once": "1", "dozen": "12"}
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
# "not X", "instead of X", "rather than X", "no longer X": the word X is what the turn rules out.
_RULED_OUT = re.compile(r"\b(?:not|never|instead\s+of|rather\s+than|no\s+longer)\s+(?:in\s+|on\s+|at\s+|the\s+|a\s+|an\s+)?"
                        r"([^\W\d_]{3,})", re.IGNORECASE)


@dataclass
class Verdict:
    kept: list[tuple[str, list[str]]] = field(default_factory=list)   # (text without ids, cited ids)
    refused: list[tuple[str, str]] = field(default_factory=list)      # (line, why)

    @property
    def share(self) -> float:
        total = len(self.kept) + len(self.refused)
        return len(self.kept) / total if total else 0.0

    def why(self) -> str:
        """The commonest reasons, for one line of the inner voice."""
        counts: dict[str, int] = {}
        for _, reason in self.refused:
            counts[reason] = counts.get(reason, 0) + 1
        return "; ".join(f"{n} {reason}" for reason, n in sorted(counts.items(), key=lambda kv: -kv[1])[:3])


def check(lines: list[str], window: dict[str, str], facts: bool = False) -> Verdict:
    """Each line judged against ``window`` (block id → the turn's text)."""
    verdict = Verdict()
    for line in lines:
        reason, text, ids = judge(line, window, facts)
        if reason:
            verdict.refused.append((line, reason))
        else:
            verdict.kept.append((text, ids))
    return verdict


def judge(line: str, window: dict[str, str], facts: bool = False) -> tuple[str | None, str, list[str]]:
    """(why it is refused or None, its text without the ids, the ids it cites)."""
    from souveraine.inference import extractive

    bare = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).strip()
    if _TRANSCRIPT.match(bare) or _TRANSCRIPT.match(line):
        return "shaped like a transcript turn", bare, []
    ids = list(dict.fromkeys(_ID.findall(bare)))
    text = _CITED.sub("", bare)     # "[^t1 · note]", "(^t1, ^t2)": a citation, whatever else it says
    text = _ID.sub("", text)
    text = re.sub(r"\(\s*[,;\s]*\)|\[\s*\]", "", text)
    text = " ".join(text.split()).strip(" ,;·—-")
    if not ids:
        return "citing no turn", text, ids
    unknown = [i for i in ids if i not in window]
    if unknown:
        return "citing turns not in the window", text, ids
    if len(extractive.content_words(text)) < 2:
        return "saying nothing", text, ids
    cited = "\n".join(window[i] for i in ids)
    said = set(extractive.content_words(cited))
    words = set(extractive.content_words(text))
    if len(words & said) < min(2, len(words)):
        return "sharing no words with the turns they cite", text, ids
    if _figures(text) - _figures(cited):
        return "holding figures the cited turns do not", text, ids
    if _ruled_out(text, cited):
        return "asserting what the cited turns rule out", text, ids
    if facts and _invented(words, said):
        return "naming what the cited turns do not", text, ids
    return None, text, ids


def _figures(text: str) -> set[str]:
    found = {_digits(f) for f in _FIGURE.findall(text)}
    return found | {_NUMBER_WORDS[w.lower()] for w in _NUMBER_WORD.findall(text)}


def _ruled_out(text: str, cited: str) -> bool:
    """Does the line say a word its turn rules out, without ruling it out itself?"""
    ruled = {m[1].casefold() for m in _RULED_OUT.finditer(cited)}
    if not ruled:
        return False
    own = {m[1].casefold() for m in _RULED_OUT.finditer(text)}
    said = {w.casefold() for w in re.findall(r"[^\W\d_]+", text)}
    affirmed = {w.casefold() for w in re.findall(r"[^\W\d_]+", _RULED_OUT.sub(" ", cited))}
    return bool((ruled - own - affirmed) & said)


def _invented(words: set[str], said: set[str]) -> bool:
    """A rare word (rarer than once in 100,000 English words) that no cited turn says, not even
    by its stem: a name or a thing made up. Everyday paraphrase ("drinks" for "has") passes."""
    from souveraine.language import lexicon

    stems = {w[:5] for w in said}
    return any(lexicon.zipf(w) < 4.0 and w[:5] not in stems for w in words - said)


def _digits(figure: str) -> str:
    return re.sub(r"\D", "", figure).lstrip("0") or "0"
