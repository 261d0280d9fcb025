"""Markdown structure, read by markdown-it-py: headings, sections, list items, block ids, links.

A pattern over lines takes a "# comment" inside a code fence for a heading, a "- " in a
fenced example for a list item and a ``[[link]]`` in a code span for a link; the CommonMark
parser does not. Obsidian's own syntax is taught to the parser: ``[[target#anchor|alias]]``
and ``![[embed]]`` are an inline rule (so a code span, a fence or a backslash keeps them
text), block ids are read from the inline text of the blocks it found, and the front matter
is a block of its own (mdit-py-plugins), whose wikilinks count as Obsidian's properties do.

Each function returns line numbers (0-based, as markdown-it maps them) or offsets into the
text it was given, so a caller can rewrite what it found. One parser is built, lazily, on
first use; the tokens of the last texts parsed are kept, so asking a note for its links,
headings and block ids parses it once. A text that cannot hold what is asked (no ``[[``, no
``^``) is answered without parsing.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from souveraine.language import patterns

_BLOCK_ID = patterns.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)\s*$")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int
    underlined: bool = False    # a setext heading: its text, then a line of = or -
    depth: int = 0              # 0 at the top of the note, more inside a quote or a list


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


@dataclass(frozen=True)
class Link:
    """A link as written: ``kind`` "wiki" (``[[…]]``) or "markdown" (``[text](dest)``), at
    ``text[start:end]``. A Markdown link's ``target`` and ``anchor`` are percent-decoded."""
    kind: str
    embed: bool
    target: str
    anchor: str | None
    alias: str | None
    start: int
    end: int


# -- the parser ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import image, link
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark").use(front_matter_plugin)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.at("link", _spanned(link, 1))
    md.inline.ruler.at("image", _spanned(image, 2))
    # What is read here is structure and links: emphasis and entities are not, and a block's
    # inline text is parsed only when links are asked of it (_children).
    md.disable(["inline", "text_join", "emphasis", "strikethrough", "entity"])
    return md


@lru_cache(maxsize=16)
def _parsed(text: str):
    env: dict = {}
    return _parser().parse(text, env), env


def _tokens(text: str):
    return _parsed(text)[0]


def _children(text: str, token) -> list:
    """The inline tokens of a block's text, parsed on first asking."""
    if not token.meta.get("parsed"):
        md = _parser()
        token.children = []
        md.inline.parse(token.content, md, _parsed(text)[1], token.children)
        token.meta["parsed"] = True
    return token.children


def wikilink_at(src: str, pos: int, end: int | None = None) -> tuple[int, WikiLink, bool] | None:
    """The wikilink written at ``src[pos]`` (``[[`` or ``![[``): where it ends, what it
    says, whether it embeds. Obsidian's grammar: no bracket and no line break inside, the
    alias after the first ``|`` (``\\|`` in a table), the anchor after the first ``#``."""
    end = len(src) if end is None else end
    embed = src.startswith("!", pos)
    open_ = pos + embed
    if not src.startswith("[[", open_):
        return None
    close = src.find("]]", open_ + 2, end)
    if close < 0:
        return None
    inner = src[open_ + 2:close]
    if not inner.strip() or "[" in inner or "]" in inner or "\n" in inner:
        return None
    target, alias = inner, None
    bar = inner.find("|")
    if bar >= 0:
        cut = bar - 1 if bar > 0 and inner[bar - 1] == "\\" else bar
        target, alias = inner[:cut], inner[bar + 1:]
    target, _, anchor = target.partition("#")
    return close + 2, WikiLink(target.strip(), anchor.strip() or None, alias), embed


def _wikilink_rule(state, silent: bool) -> bool:
    if state.src[state.pos] not in "![":
        return False
    found = wikilink_at(state.src, state.pos, state.posMax)
    if found is None:
        return False
    end, link, embed = found
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = state.src[state.pos:end]
        token.meta = {"link": link, "embed": embed, "span": (state.pos, end)}
    state.pos = end
    return True


def _spanned(rule, label_at: int):
    """markdown-it's link (or image) rule, noting where in the inline text the link stood and
    where its text ends, which its tokens do not say."""
    def spanned(state, silent: bool) -> bool:
        start, first = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            token = next(t for t in state.tokens[first:] if t.type in ("link_open", "image"))
            from markdown_it.helpers import parseLinkLabel

            label_end = parseLinkLabel(state, start + label_at - 1, True)
            token.meta = {"span": (start, state.pos), "label": (start + label_at, label_end)}
        return True
    return spanned


# -- headings, sections, items -------------------------------------------------------------


def headings(text: str) -> list[Heading]:
    """Every heading (ATX and setext, at any depth: a heading in a quote is one), never a
    ``#`` line in code."""
    tokens = _tokens(text)
    return [Heading(int(tok.tag[1]), tokens[i + 1].content.strip(), tok.map[0], tok.markup in ("=", "-"), tok.level)
            for i, tok in enumerate(tokens) if tok.type == "heading_open"]


def demote(text: str, by: int) -> str:
    """Every heading shifted down ``by`` levels, at most to ######; a setext heading at the top
    of the note becomes an ATX one. Code is left as it is."""
    rows = text.split("\n")
    for heading in reversed(headings(text)):
        level = "#" * min(6, heading.level + by)
        if heading.underlined:
            if heading.depth == 0 and heading.line + 1 < len(rows):
                rows[heading.line:heading.line + 2] = [f"{level} {heading.text}"]
            continue
        row = rows[heading.line]
        at = row.index("#")
        hashes = len(row) - at - len(row[at:].lstrip("#"))
        rows[heading.line] = row[:at] + level + row[at + hashes:]
    return "\n".join(rows)


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


def section(text: str, wanted: str, level: int = 2) -> Section | None:
    """The section under the first heading of ``level`` or above whose text is ``wanted``."""
    return next((s for s in sections(text, level) if s.heading and s.heading.text == wanted), None)


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
    return [(tok.content, tok.map[0]) for tok in _tokens(text) if tok.type == "inline" and tok.map]


def paragraphs(text: str, nested: bool = False) -> list[tuple[str, int]]:
    """Every paragraph at the top of the note, as written, with its line; with ``nested``, those
    in lists and quotes too."""
    tokens = _tokens(text)
    return [(tokens[i + 1].content, tok.map[0]) for i, tok in enumerate(tokens)
            if tok.type == "paragraph_open" and (nested or tok.level == 0)]


def blocks(text: str) -> list[str]:
    """The note's blocks as written, stripped, in order: each paragraph, heading, code block,
    quote, table and each item of a list at the top of the note — what a person separates with
    blank lines, except that a code block or a list item keeps the blank lines inside it.
    Lines no block holds (a link reference definition) are blocks of their own, so nothing
    written is left out."""
    rows = text.split("\n")
    spans: list[tuple[int, int]] = []
    for tok in _tokens(text):
        if not tok.map or tok.nesting == -1:
            continue
        if tok.level == 0 and tok.type not in ("bullet_list_open", "ordered_list_open") \
                or tok.level == 1 and tok.type == "list_item_open":
            spans.append((tok.map[0], tok.map[1]))
    out, covered = [], set()
    for start, end in spans:
        covered.update(range(start, end))
    n = 0
    starts = {start: end for start, end in spans}
    while n < len(rows):
        if n in starts:
            out.append("\n".join(rows[n:starts[n]]))
            n = starts[n]
        elif n not in covered and rows[n].strip():
            end = n
            while end < len(rows) and rows[end].strip() and end not in covered:
                end += 1
            out.append("\n".join(rows[n:end]))
            n = end
        else:
            n += 1
    return [b.strip() for b in out if b.strip()]


def code_lines(text: str, indented: bool = True) -> set[int]:
    """The lines (0-based) inside code: fenced blocks, fence lines included, and indented
    blocks unless ``indented`` is False (a chat turn's indented lines are seldom code)."""
    kinds = ("fence", "code_block") if indented else ("fence",)
    return {n for tok in _tokens(text) if tok.type in kinds and tok.map for n in range(*tok.map)}


_MARGIN_FENCE = patterns.compile(r"^(`{3,}(?=[^`]*$)|~{3,})")


def fenced_lines(text: str) -> set[int]:
    """The lines (0-based) of fenced code blocks, fence lines included, as CommonMark reads
    them. A text whose every line holding a fence mark starts with its fence at the margin,
    and none with ``<`` (no HTML block), is answered by pairing the fences as CommonMark does
    (such a fence is never inside a list, a quote or an indented block), without loading the
    parser — a chat turn's usual case; any other text is parsed."""
    lines = text.split("\n")
    marked = [line for line in lines if "```" in line or "~~~" in line]
    if not marked:
        return set()
    if not all(_MARGIN_FENCE.match(line) for line in marked) or any(line.lstrip(" ")[:1] == "<" for line in lines):
        return code_lines(text, indented=False)
    found: set[int] = set()
    fence, start = None, 0
    for n, line in enumerate(lines):
        if fence is None:
            opened = _MARGIN_FENCE.match(line)
            fence, start = (opened[1], n) if opened else (None, 0)
        elif line.startswith(fence) and not line.rstrip(" \t").strip(fence[0]):
            found.update(range(start, n + 1))
            fence = None
    if fence is not None:       # runs to the end of the text; a last newline opens no line
        found.update(range(start, len(lines) - (text.endswith("\n"))))
    return found


def without_code(text: str, indented: bool = True) -> str:
    """``text`` with the lines of its code blocks blanked (so line numbers hold)."""
    if "```" not in text and "~~~" not in text and (not indented or "    " not in text and "\t" not in text):
        return text
    code = code_lines(text, indented)
    return "\n".join("" if n in code else row for n, row in enumerate(text.split("\n"))) if code else text


def front_matter_end(text: str) -> int:
    """The first line after the front matter (0 when there is none)."""
    tokens = _tokens(text) if text.startswith("---") else ()
    return tokens[0].map[1] if tokens and tokens[0].type == "front_matter" else 0


def open_fence(text: str) -> str | None:
    """The fence (its backticks or tildes) a code block opened in ``text`` is left open with at
    its end, so a cut can close it; None when every fence closes."""
    if "```" not in text and "~~~" not in text:
        return None
    rows = text.split("\n")
    for tok in reversed(_tokens(text)):
        if tok.type != "fence" or not tok.map:
            continue
        last = rows[tok.map[1] - 1].strip() if tok.map[1] - 1 < len(rows) else ""
        closed = tok.map[1] - 1 > tok.map[0] and len(last) >= len(tok.markup) and set(last) == {tok.markup[0]}
        return None if closed else tok.markup
    return None


def runs_on(text: str) -> bool:
    """Whether a block ``text`` opens runs on past its end: an unclosed fence, or an HTML
    block (a comment, ``<pre>``, ``<script>``…) whose end marker never comes. A paragraph
    after a blank line would be swallowed by it. ``text`` is read as the middle of a note
    (a leading ``---`` is no front matter)."""
    tokens = _parser().parse("START\n\n" + text + "\n\nEND\n")
    return not (len(tokens) >= 3 and tokens[-3].type == "paragraph_open" and tokens[-3].level == 0
                and tokens[-2].content == "END")


# -- links and block ids --------------------------------------------------------------------


def links(text: str) -> list[Link]:
    """Every wikilink and Markdown link, in order, with its offsets: in prose, in headings,
    in list items and quotes, and the wikilinks of the front matter (Obsidian's properties
    link); never in code, in raw HTML, or behind a backslash."""
    if "[[" not in text and "](" not in text:
        return []
    head = _front_matter(text)
    if head is not None and "[[" not in text[head[2]:] and "](" not in text[head[2]:]:
        return _front_matter_links(text, head[0], head[1])      # most memories: a source link, no other
    if head is not None or not text.startswith("---"):
        body = head[2] if head else 0
        if _plain(text, body):      # a memory's sentence, a person's mentions: nothing to parse
            return (_front_matter_links(text, head[0], head[1]) if head else []) + _plain_wikilinks(text, body)
    starts = _line_starts(text)
    found: list[Link] = []
    for tok in _tokens(text):
        if tok.type == "front_matter":
            found += _front_matter_links(text, starts[tok.map[0] + 1], starts[tok.map[1] - 1])
        elif tok.type == "inline" and tok.map and ("[[" in tok.content or "](" in tok.content):
            found += _inline_links(text, starts, tok)
    return found


def wikilinks(text: str) -> list[WikiLink]:
    """Obsidian's [[target#anchor|alias]] links in prose (not in code)."""
    return [WikiLink(l.target, l.anchor, l.alias) for l in links(text) if l.kind == "wiki"]


def block_ids(text: str) -> list[tuple[str, int]]:
    """Obsidian's block ids (a line ending in ^id, or a paragraph that is only ^id; in a list
    item too), with their line; never in code."""
    if "^" not in text:
        return []
    found = []
    for block, line in prose_blocks(text):
        if "^" not in block:
            continue
        for offset, row in enumerate(block.split("\n")):
            match = _BLOCK_ID.search(row)
            if match:
                found.append((match[1], line + offset))
    return found


def shown(text: str, show: Callable[[Link], str | None] = lambda l: l.alias or l.target) -> str:
    """``text`` with each link replaced by ``show(link)`` (None keeps it as written): what a
    reader sees, by default a link's alias or target. Links in code stay as written."""
    out, last = [], 0
    for link in links(text):
        replacement = show(link)
        if replacement is not None:
            out += [text[last:link.start], replacement]
            last = link.end
    return "".join(out) + text[last:] if out else text


def _front_matter(text: str) -> tuple[int, int, int] | None:
    """Where the front matter's content starts and ends and the body starts, by the rule of
    mdit-py-plugins' front_matter (tests hold the two to the same answer), without parsing."""
    if not text.startswith("---"):
        return None
    first = text.find("\n")
    if first < 0:
        return None
    opening = len(text[:first]) - len(text[:first].lstrip("-"))
    at = first + 1
    while at <= len(text):
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        row = text[at:stop]
        bare = row.rstrip("\r").lstrip(" ")
        indent = len(row) - len(row.lstrip(" "))
        if (indent == 0 and bare.startswith("...") and not bare[3:].strip(" \t")) or (
                indent < 4 and bare.startswith("-" * opening) and not bare.lstrip("-").strip(" \t")):
            return first + 1, max(at - 1, first + 1), min(stop + 1, len(text))
        at = stop + 1
    return None


# What can make a "[[" in the body anything but a wikilink, or a link anything but a wikilink:
# code (spans, fences, indented blocks), HTML and autolinks, escapes, Markdown links and their
# reference definitions, and what markdown-it rewrites before it reads (CR, NUL).
# Indented code too: a tab or four spaces anywhere (after a list's or a quote's marker too).
_NOT_PLAIN = ("`", "~~~", "<", "\\", "](", "]:", "\r", "\0", "\t", "    ")


def _plain(text: str, start: int) -> bool:
    """Whether the body from ``start`` holds none of what needs the parser to find its links;
    then its links are its wikilinks, each found where it is written (tests hold this to the parser)."""
    return not any(text.find(s, start) >= 0 for s in _NOT_PLAIN)


def _plain_wikilinks(text: str, start: int) -> list[Link]:
    """The wikilinks of a plain body, tried at every "[[" as the inline rule tries each bracket."""
    found, pos = [], text.find("[[", start)
    while pos >= 0:
        at = pos - 1 if pos > start and text[pos - 1] == "!" else pos
        hit = wikilink_at(text, at)
        if hit is None:
            pos = text.find("[[", pos + 1)
            continue
        stop, link, embed = hit
        found.append(Link("wiki", embed, link.target, link.anchor, link.alias, at, stop))
        pos = text.find("[[", stop)
    return found


def _front_matter_links(text: str, start: int, end: int) -> list[Link]:
    found, pos = [], text.find("[[", start, end)
    while pos >= 0:
        at = pos - 1 if pos > start and text[pos - 1] == "!" else pos
        hit = wikilink_at(text, at, end)
        if hit is None:
            pos = text.find("[[", pos + 2, end)
            continue
        stop, link, embed = hit
        found.append(Link("wiki", embed, link.target, link.anchor, link.alias, at, stop))
        pos = text.find("[[", stop, end)
    return found


def _inline_links(text: str, starts: list[int], tok) -> list[Link]:
    place = _placer(text, starts, tok)
    found = []
    for child in _children(text, tok):
        span = (child.meta or {}).get("span")
        if span is None:
            continue
        start, end = place(span[0]), place(span[1])
        if start is None or end is None:
            continue
        if child.type == "wikilink":
            link = child.meta["link"]
            found.append(Link("wiki", child.meta["embed"], link.target, link.anchor, link.alias, start, end))
        else:
            made = _markdown_link(text, tok.content, child, start, end)
            if made is not None:
                found.append(made)
    return found


def _markdown_link(text: str, content: str, token, start: int, end: int) -> Link | None:
    from urllib.parse import unquote

    label_start, label_end = token.meta["label"]
    if label_end < 0 or not content.startswith("](", label_end):   # a reference link: no path written here
        return None
    dest = token.attrGet("src" if token.type == "image" else "href") or ""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", dest) or dest == "#":
        return None
    path, _, anchor = dest.partition("#")
    return Link("markdown", token.type == "image", unquote(path), unquote(anchor) or None,
                content[label_start:label_end], start, end)


def _line_starts(text: str) -> list[int]:
    starts, at = [0], text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    starts.append(len(text) + 1)
    return starts


def _placer(text: str, starts: list[int], tok) -> Callable[[int], int | None]:
    """From an offset in an inline token's text to one in the note: each line of the inline
    text is the end of its line in the note (quote and list marks, indentation cut off)."""
    rows = tok.content.split("\n")
    bases: list[tuple[int, int]] = []     # (offset of the row in the content, in the note)
    at = 0
    for k, row in enumerate(rows):
        number = tok.map[0] + k
        if number + 1 >= len(starts):
            return lambda offset: None
        line = text[starts[number]:starts[number + 1] - 1].rstrip("\r")
        kept = line.rstrip()
        if row and kept.endswith(row.rstrip()):
            column = len(kept) - len(row.rstrip())
        else:
            column = line.find(row) if row else len(line)
            if column < 0:
                return lambda offset: None
        bases.append((at, starts[number] + column))
        at += len(row) + 1

    def place(offset: int) -> int | None:
        for row_start, note_at in reversed(bases):
            if offset >= row_start:
                return note_at + offset - row_start
        return None
    return place
