"""A note's sections: its body cut along headings, and how much the pieces have in common.

A note is overgrown when it is too large, or when it holds many sections that share almost
no words — a dumping ground of unrelated things that each deserve a note of their own.
Headings are read by CommonMark (``language.markdown``): a "# comment" in a fenced block is
no heading, "Title" over "=====" is one.
"""

import re
from dataclasses import dataclass
from itertools import combinations

# No line that could be a heading (ATX or setext): the body is not parsed at all.
_MAYBE_HEADING = re.compile(r"^[ \t]{0,3}(?:#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)
_WORD = re.compile(r"[^\W\d_]{4,}")
MANY_SECTIONS = 8
UNRELATED = 0.08   # mean pairwise overlap of sections' words below which they are unrelated
_STOP = frozenset("""
this that with from have were they them their there then than what when where which while
will would could should about into over also just some more most very only your ours each
been being does done here like make made many much must need such these those other
""".split())


@dataclass(frozen=True)
class Section:
    level: int
    title: str
    text: str   # the heading line and everything under it, verbatim


@dataclass(frozen=True)
class Cut:
    preamble: str
    sections: tuple[Section, ...]

    @property
    def level(self) -> int:
        return self.sections[0].level if self.sections else 0


def headings(body: str) -> list[tuple[int, str, int]]:
    """(level, title, line index) of each heading outside fenced code."""
    if not _MAYBE_HEADING.search(body):
        return []
    from souveraine.language import markdown

    return [(h.level, h.text, h.line) for h in markdown.headings(body)]


def cut(body: str) -> Cut:
    """The body cut at the highest heading level that occurs at least twice (a lone H1 is a title)."""
    marks = headings(body) if _candidates(body) >= 2 else []
    levels = sorted({level for level, _, _ in marks})
    level = next((l for l in levels if sum(1 for m in marks if m[0] == l) >= 2), None)
    if level is None:
        return Cut(body, ())
    lines = body.split("\n")
    starts = [(i, title) for l, title, i in marks if l == level]
    sections = []
    for n, (start, title) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        text = "\n".join(lines[start:end]).strip("\n") + "\n"
        sections.append(Section(level, title, text))
    return Cut("\n".join(lines[:starts[0][0]]), tuple(sections))


def overlap(sections: tuple[Section, ...] | list[Section]) -> float:
    """The mean Jaccard overlap of the sections' content words (1.0 with fewer than two)."""
    bags = [words(s.text) for s in sections]
    pairs = [(a, b) for a, b in combinations(bags, 2) if a or b]
    if not pairs:
        return 1.0
    return sum(len(a & b) / len(a | b) for a, b in pairs) / len(pairs)


def unrelated(body: str) -> int:
    """How many unrelated sections the body holds; 0 when it is not a dumping ground of them."""
    if _candidates(body) < MANY_SECTIONS:     # fewer lines that could be headings: no parse needed
        return 0
    sections = cut(body).sections
    if len(sections) < MANY_SECTIONS or overlap(sections) >= UNRELATED:
        return 0
    return len(sections)


def _candidates(body: str) -> int:
    """How many lines could be headings: never fewer than the headings CommonMark finds."""
    return len(_MAYBE_HEADING.findall(body))


def words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP}


def paragraphs(body: str) -> list[str]:
    """The body's blocks, stripped, as CommonMark reads them (``language.markdown.blocks``):
    text between blank lines, but a code block or a list item whole however many blank lines
    it holds, and a heading apart from the paragraph under it."""
    if not body.strip():
        return []
    from souveraine.language import markdown

    return markdown.blocks(body)
