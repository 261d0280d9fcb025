"""The journal: raw experience, one append-only Markdown file a day.

A turn is a heading, the text unchanged, and an Obsidian block id on its own line::

    ## 14:32:05 · user · session `abc123`

    What did I say about that book?

    ^t143205u4a1f

so ``[[2026-11-30#^t143205u4a1f]]`` links to it. Reflections land here too, as entries
whose role is ``reflection``. docs/FORMATS.md is the reference for this format.
"""

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from souveraine.language import patterns
from souveraine.store import hashing

ROOT = "journal"
ROLES = ("user", "assistant", "system", "tool", "reflection")
_DAY = patterns.compile(r"(\d{4})-(\d\d)-(\d\d)\.md$")

# -- the format's grammar (docs/FORMATS.md), in one place -----------------------------------
#
# The journal is read line by line, on every persist and wake, with these patterns: loading
# markdown-it to read a format the project alone writes would cost each of them more than
# the read. What keeps the two readings one is the escape on write: no line of a turn's
# text may read, to Markdown, as a turn's heading or block id, or open a block (a fence, an
# HTML block) that would run past the turn and swallow the turns after it. A test generates
# and fuzzes journals and holds the line reader to markdown-it's reading of every heading
# and block id (tests/store/test_journal_grammar.py).

TITLE = r"(\d\d:\d\d:\d\d) · ([a-z]+)(?: · session `([^`\n]*)`)?"           # a turn heading's text
_HEADING = patterns.compile(rf"^## {TITLE}[ \t]*$")                                  # as written
_BLOCK = patterns.compile(r"^\^([A-Za-z0-9-]+)[ \t]*$")                              # as written
# What CommonMark reads as a level-2 heading with that text, or as a paragraph that is only a
# block id, or as the start of a block that only a line of its own kind ends (a fence; an
# HTML block of kinds 1 to 5): the shapes a turn's text must not hold as they are.
_HEADING_SHAPED = patterns.compile(rf"^ {{0,3}}##[ \t]+{TITLE}(?:[ \t]+#*)?[ \t]*$")
_BLOCK_SHAPED = patterns.compile(r"^ {0,3}\^[A-Za-z0-9-]+[ \t]*$")
_FENCE = patterns.compile(r"^(`{3,}(?=[^`]*$)|~{3,})")
_OPENER = patterns.compile(r"^ {0,3}(?:`{3,}[^`]*$|~{3,}|<(?i:script|pre|style|textarea)(?:[ \t>]|$)|<!--|<\?|<![A-Za-z]|<!\[CDATA\[)")


@dataclass(frozen=True)
class Turn:
    block_id: str
    at: datetime | None
    role: str
    session: str | None
    text: str
    path: str            # journal/YYYY/MM/YYYY-MM-DD.md
    line: int = 0        # 1-based line of the heading

    @property
    def link(self) -> str:
        """An Obsidian link to this turn."""
        return f"[[{self.path[:-3]}#^{self.block_id}|{Path(self.path).stem} {self.at:%H:%M}]]" if self.at else f"[[{self.path[:-3]}#^{self.block_id}]]"

    @property
    def day(self) -> date:
        return day_of(self.path)


def day_path(day: date) -> str:
    return f"{ROOT}/{day:%Y}/{day:%m}/{day:%Y-%m-%d}.md"


def is_day(path: str) -> bool:
    """Whether ``path`` (relative to the memory) is a journal day file."""
    return path.startswith(ROOT + "/") and _DAY.search(path) is not None


def day_of(path: str) -> date:
    match = _DAY.search(path)
    if not match:
        raise ValueError(f"{path} is not a journal day file")
    return date(int(match[1]), int(match[2]), int(match[3]))


def header(day: date) -> str:
    """The frontmatter and title a new day file starts with."""
    title = f"{day:%A} {day.day} {day:%B %Y}"
    return (f"---\ntype: journal\ndate: {day.isoformat()}\n"
            f"description: What was said and witnessed on {title}.\ntags:\n  - journal\n---\n# {title}\n")


def block_id(at: datetime, role: str, text: str, session: str | None, taken: set[str] | frozenset = frozenset()) -> str:
    """A stable id: the time, the role's initial, a hash of the words; suffixed if taken."""
    digest = hashing.sha1(f"{session or ''}\0{text}".encode()).hexdigest()[:4]
    base = f"t{at:%H%M%S}{role[0]}{digest}"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def render(at: datetime, role: str, text: str, session: str | None, block: str) -> str:
    """One turn as it is appended to the day file."""
    where = f" · session `{session}`" if session else ""
    body = _escape(text.replace("\r\n", "\n").strip("\n"))
    return f"\n## {at:%H:%M:%S} · {role}{where}\n\n{body}\n\n^{block}\n"


def _shaped(line: str) -> bool:
    """A line shaped like a turn's heading, a block id or a block opener, once its leading
    backslashes are gone."""
    bare = line.lstrip("\\")
    return bool(_HEADING_SHAPED.match(bare) or _BLOCK_SHAPED.match(bare) or _OPENER.match(bare))


def _escape(body: str) -> str:
    """Lines shaped like a turn's heading or block id get one more leading backslash, so the
    day reads back as exactly the turns given (Markdown shows ``\\##`` as ``##``); so do
    lines that already start with a backslash and are shaped like a block opener, and, when
    the text would leave a fence or an HTML block open past its end, every opener in it."""
    if "##" not in body and "^" not in body and "```" not in body and "~~~" not in body and "<" not in body:
        return body
    lines = body.split("\n")
    openers = [n for n, line in enumerate(lines) if _OPENER.match(line)]
    unclosed = bool(openers) and _leaves_open("\n".join("\\" + l if _escaped(l, False) else l for l in lines))
    return "\n".join("\\" + line if _escaped(line, unclosed) else line for line in lines)


def _escaped(line: str, unclosed: bool) -> bool:
    bare = line.lstrip("\\")
    if _HEADING_SHAPED.match(bare) or _BLOCK_SHAPED.match(bare):
        return True
    return bool(_OPENER.match(bare)) and (bare != line or unclosed)


def _leaves_open(body: str) -> bool:
    """Whether Markdown would read a block of ``body`` as running on past it. A text whose
    fences all start at the margin and no line of which starts with ``<`` (no HTML block) is
    answered by pairing its fences as CommonMark does (a fence at the margin is never inside
    a list, a quote or an indented block); any other is read by the parser. The journal's
    differential test holds the two answers to one."""
    lines = body.split("\n")
    if "<" in body and any(line.lstrip(" ")[:1] == "<" for line in lines) or \
            any(line[:1] == " " for line in lines if _OPENER.match(line)):
        from souveraine.language import markdown

        return markdown.runs_on(body)
    fence = None
    for line in lines:
        if fence is None:
            opened = _FENCE.match(line)
            fence = opened[1] if opened else None
        elif _closes(line, fence):
            fence = None
    return fence is not None


def _closes(line: str, fence: str) -> bool:
    bare = line.lstrip(" ")
    return len(line) - len(bare) < 4 and bare.startswith(fence) and not bare.rstrip(" \t").strip(fence[0])


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    return "\n".join(line[1:] if line.startswith("\\") and _shaped(line) else line for line in body.split("\n"))


def block_ids(text: str) -> set[str]:
    """The block ids of a day's turns (an escaped ``\\^id`` in a turn's text is none)."""
    return {m[1] for m in _BLOCK_LINES.finditer(text)}


_BLOCK_LINES = patterns.compile(_BLOCK.pattern, re.MULTILINE)


def parse(text: str, path: str) -> list[Turn]:
    """Every turn of one day file, in order."""
    day = day_of(path)
    lines = text.split("\n")
    turns: list[Turn] = []
    for start, match, end, block in _turn_lines(lines):
        body = _unescape("\n".join(lines[start + 1:end]).strip("\n"))
        hh, mm, ss = (int(x) for x in match[1].split(":"))
        at = datetime(day.year, day.month, day.day, hh, mm, ss)
        turns.append(Turn(block[1] if block else f"line{start + 1}", at, match[2], match[3], body, path, start + 1))
    return turns


def regions(text: str) -> list[tuple[int, int]]:
    """Where a day's header and each turn's text stand in it, as offsets (the text as written,
    escaped): a reader that needs only what a person wrote reads these alone."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out: list[tuple[int, int]] = []
    for start, _, end, _ in _turn_lines(lines):
        if not out:
            out.append((0, max(starts[start] - 1, 0)))
        out.append((min(starts[start + 1], len(text)), max(min(starts[end] - 1, len(text)), min(starts[start + 1], len(text)))))
    return out or [(0, len(text))]


def _turn_lines(lines: list[str]) -> Iterator[tuple[int, re.Match, int, re.Match | None]]:
    """Each turn as (its heading's line, the heading's match, the line after its text, its
    block id's match): its text is ``lines[heading + 1:end]``."""
    i = 0
    while i < len(lines):
        match = _HEADING.match(lines[i])
        if not match:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not (_BLOCK.match(lines[j]) and not lines[j - 1].strip()):
            if _HEADING.match(lines[j]) and not lines[j - 1].strip():
                break
            j += 1
        block = _BLOCK.match(lines[j]) if j < len(lines) else None
        yield i, match, j, block
        i = j + 1 if block else j      # a turn without its block id ends at the next heading, which is read


def read_day(root: Path, relpath: str) -> list[Turn]:
    return parse((root / relpath).read_text(encoding="utf-8"), relpath)


def days(root: Path, since: date | None = None, until: date | None = None) -> list[str]:
    """Journal day files (relative paths), oldest first, optionally within dates; never one
    reached by a link out of the memory."""
    from souveraine.store import confine

    real = Path(root).resolve()
    base = real / ROOT
    if not base.is_dir() or confine.leads_out(real, base):
        return []
    found = []
    for year in sorted(p for p in base.iterdir() if p.is_dir() and p.name.isdigit() and not confine.leads_out(real, p)):
        if since and int(year.name) < since.year or until and int(year.name) > until.year:
            continue
        for month in sorted(p for p in year.iterdir() if p.is_dir() and not confine.leads_out(real, p)):
            if _outside(int(year.name), month.name, since, until):
                continue
            try:
                files = sorted((e.name, e.is_symlink()) for e in os.scandir(month) if e.name.endswith(".md"))
            except OSError:
                continue
            for name, link in files:
                try:
                    day = day_of(name)
                except ValueError:
                    continue
                if (since and day < since) or (until and day > until) or link and confine.leads_out(real, month / name):
                    continue
                found.append(f"{ROOT}/{year.name}/{month.name}/{name}")
    return found


def _outside(year: int, month: str, since: date | None, until: date | None) -> bool:
    """A month folder wholly before ``since`` or after ``until``: not even listed."""
    if not month.isdigit():
        return False
    key = (year, int(month))
    return bool(since and key < (since.year, since.month) or until and key > (until.year, until.month))


def turns(root: Path, since: date | None = None, until: date | None = None) -> Iterator[Turn]:
    for relpath in days(root, since, until):
        yield from read_day(root, relpath)


def messages_since(root: Path, role: str = "reflection") -> int:
    """User and assistant turns after the newest entry of ``role``, newest days first."""
    total = 0
    for relpath in reversed(days(root)):
        for turn in reversed(read_day(root, relpath)):
            if turn.role == role:
                return total
            if turn.role in ("user", "assistant"):
                total += 1
    return total
