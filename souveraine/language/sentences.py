"""Sentence boundaries, with their offsets in the original text.

pysbd (rule-based, the Golden Rules set) finds the boundaries, so "Dr. Silva", "10 a.m.",
"e.g." and "10.0.0.5" do not end a sentence. Around it, what pysbd does not know about
Markdown: a fenced code block is not speech (masked, offsets kept), a line break ends a
sentence (list items, headings, one-line replies), and list or heading marks are not
words of the sentence. A quotation stays inside the sentence that quotes it.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from souveraine.language.patterns import lazy

_OPEN_FENCE = lazy(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = lazy(r"`[^`\n]+`")
_MARK = lazy(r"^[ \t]*(?:[-*+>]+|#{1,6}|\d+[.)](?=[ \t]+\S)|\[[ xX]\])(?:[ \t]+(?:\[[ xX]\][ \t]+)?|$)")
_EDGE = " \t\r\n"
# Where a full stop may not end a sentence — "Dr. Silva", "e.g. this", "10 a.m. on", "it. and" —
# pysbd's rules decide; a line without any of these splits at its marks, at no cost.
_DOUBT = lazy(r"(?<=\w )[A-Z][a-z]{0,3}\.\s|(?:^|\s)(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Sr|Jr|Fr|Rev|Gen|Capt|Lt|No|Vol|Fig)\.\s|\b[a-zA-Z]\.(?:[a-zA-Z]\.)*\s|\.\s+[a-z\d]|\.\.|…|[\"“'(][^\"”')]*[.!?]\s")
_BOUNDARY = lazy(r"(?<=[.!?])[\"”')\]]*\s+")


@dataclass(frozen=True)
class Sentence:
    text: str    # the sentence as written, marks and surrounding space stripped
    start: int   # offset of its first character in the original text
    end: int     # offset just after its last character

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=1)
def _segmenter():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def mask_code(text: str, inline: bool = False) -> str:
    """The text with fenced code blocks (and, if asked, `inline code`) blanked out, same length."""
    blank = lambda m: re.sub(r"[^\n]", " ", m[0])  # noqa: E731
    if "```" in text or "~~~" in text:
        from souveraine.language import markdown     # CommonMark's pairing of fences

        fenced = markdown.fenced_lines(text)
        if fenced:
            text = "\n".join(" " * len(line) if n in fenced else line for n, line in enumerate(text.split("\n")))
        text = _OPEN_FENCE.sub(blank, text)    # one a line's words open: "here: ```print(1)```"
    return _INLINE_CODE.sub(blank, text) if inline else text


def split(text: str) -> list[Sentence]:
    """The sentences of ``text``, in order, each with its span; code blocks are skipped."""
    return list(_split(text)) if text else []


@lru_cache(maxsize=64)   # a turn's words are read by several judgements in one process
def _split(text: str) -> tuple[Sentence, ...]:
    masked = mask_code(text)
    if "[[" in masked:
        masked = _mask_wikilinks(masked)
    found = []
    offset = 0
    for line in masked.split("\n"):
        found += _split_line(text, line, offset)
        offset += len(line) + 1
    return tuple(found)


def _mask_wikilinks(text: str) -> str:
    """The text with each wikilink blanked to a word of its length: "[[people/x|Dr. Okafor]]"
    is one name, never a sentence's end."""
    from souveraine.language import markdown

    chars = list(text)
    for link in markdown.links(text):
        if link.kind == "wiki":
            chars[link.start:link.end] = "X" + "x" * (link.end - link.start - 1)
    return "".join(chars)


def _split_line(text: str, line: str, offset: int) -> list[Sentence]:
    mark = _MARK.match(line)
    start = mark.end() if mark else 0
    if not line[start:].strip(_EDGE):
        return []
    if not re.search(r"[.!?…]\s+\S", line[start:]):
        return [_sentence(text, offset + start, offset + len(line))] if line[start:].strip(_EDGE) else []
    found, cursor = [], start
    pieces = _segmenter().segment(line[start:]) if _DOUBT.search(line[start:]) else _BOUNDARY.split(line[start:])
    for piece in pieces:
        at = line.find(piece, cursor)
        if at < 0:
            at = cursor
        end = at + len(piece)
        sentence = _sentence(text, offset + at, offset + end)
        if sentence:
            found.append(sentence)
        cursor = end
    return found


def _sentence(text: str, start: int, end: int) -> Sentence | None:
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    return Sentence(text[start:end], start, end) if start < end else None


def texts(text: str) -> list[str]:
    """Just the sentences' words."""
    return [s.text for s in split(text)]
