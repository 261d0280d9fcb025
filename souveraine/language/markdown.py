"""Markdown structure, read by markdown-it-py: headings, sections, list items, block ids, wikilinks.

A pattern over lines takes a "# comment" inside a code fence for a heading and a "- " in
a fenced example for a list item; the CommonMark parser does not. Each function returns
line numbers (0-based, as markdown-it maps them) so a caller can rewrite the lines it
found. Wikilinks and block ids are Obsidian's, not CommonMark's: they are read from the
inline text of the blocks the parser found, never from code.
"""

import re
from dataclasses import dataclass
from functools import lru_cache

_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#([^\]|]*))?(?:\|([^\]]*))?\]\]")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)\s*$")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True)
class Section:
    heading: Heading | None     # None for what comes before the first heading
    start: int                  # first line of its body
    end: int                    # the line after its last (the next heading of its level or above, or the end)


@dataclass(frozen=True)
class Item:
    text: str                   # the list item's first paragraph, as written
    line: int


@dataclass(frozen=True)
class WikiLink:
    target: str
    anchor: str | None
    alias: str | None


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _tokens(text: str):
    return _parser().parse(text)


def headings(text: str) -> list[Heading]:
    tokens = _tokens(text)
    return [Heading(int(tok.tag[1]), tokens[i + 1].content.strip(), tok.map[0])
            for i, tok in enumerate(tokens) if tok.type == "heading_open"]


def title(text: str) -> str | None:
    """The first level-1 heading's text."""
    return next((h.text for h in headings(text) if h.level == 1), None)


def sections(text: str, level: int = 2) -> list[Section]:
    """The body cut at headings of ``level`` or above: what each heading holds, by line."""
    total = len(text.splitlines())
    cuts = [h for h in headings(text) if h.level <= level]
    out = [Section(None, 0, cuts[0].line if cuts else total)]
    for n, heading in enumerate(cuts):
        end = cuts[n + 1].line if n + 1 < len(cuts) else total
        out.append(Section(heading, heading.line + 1, end))
    return out


def items(text: str) -> list[Item]:
    """Every list item's first paragraph, with its line; nested items too, code never."""
    tokens = _tokens(text)
    found = []
    for i, tok in enumerate(tokens):
        if tok.type == "list_item_open" and i + 2 < len(tokens) and tokens[i + 2].type == "inline":
            found.append(Item(tokens[i + 2].content, tok.map[0]))
    return found


def prose_blocks(text: str) -> list[tuple[str, int]]:
    """The inline text of every paragraph, heading and list item, with its first line: what
    a person wrote, without code."""
    tokens = _tokens(text)
    return [(tok.content, tok.map[0]) for tok in tokens if tok.type == "inline" and tok.map]


def wikilinks(text: str) -> list[WikiLink]:
    """Obsidian's [[target#anchor|alias]] links in prose (not in code)."""
    return [WikiLink(m[1].strip(), (m[2] or None), (m[3] or None))
            for block, _ in prose_blocks(text) for m in _WIKILINK.finditer(block)]


def block_ids(text: str) -> list[tuple[str, int]]:
    """Obsidian's block ids (a line ending in ^id, or a paragraph that is only ^id), with their line."""
    found = []
    for block, line in prose_blocks(text):
        for offset, row in enumerate(block.split("\n")):
            match = _BLOCK_ID.search(row)
            if match:
                found.append((match[1], line + offset))
    return found
