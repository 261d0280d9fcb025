"""The journal: raw experience, one append-only Markdown file a day.

A turn is a heading, the text unchanged, and an Obsidian block id on its own line::

    ## 14:32:05 · user · session `abc123`

    What did I say about that book?

    ^t143205u4a1f

so ``[[2026-11-30#^t143205u4a1f]]`` links to it. Reflections land here too, as entries
whose role is ``reflection``. docs/FORMATS.md is the reference for this format.
"""

import hashlib
import os
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Iterator

ROOT = "journal"
ROLES = ("user", "assistant", "system", "tool", "reflection")
_HEADING = re.compile(r"^## (\d\d:\d\d:\d\d) · ([a-z]+)(?: · session `([^`\n]*)`)?[ \t]*$")
_BLOCK = re.compile(r"^\^([A-Za-z0-9-]+)[ \t]*$")
_DAY = re.compile(r"(\d{4})-(\d\d)-(\d\d)\.md$")


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
    digest = hashlib.sha1(f"{session or ''}\0{text}".encode()).hexdigest()[:4]
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
    """A line the parser would take for a turn's heading or block id, once its leading
    backslashes are gone."""
    bare = line.lstrip("\\")
    return bool(_HEADING.match(bare) or _BLOCK.match(bare))


def _escape(body: str) -> str:
    """Words that look like a turn's heading or block id get one more leading backslash, so
    the day reads back as exactly the turns given (Markdown shows ``\\##`` as ``##``)."""
    if "## " not in body and "^" not in body:
        return body
    return "\n".join("\\" + line if _shaped(line) else line for line in body.split("\n"))


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    return "\n".join(line[1:] if line.startswith("\\") and _shaped(line) else line for line in body.split("\n"))


def block_ids(text: str) -> set[str]:
    return {m[1] for m in re.finditer(r"^\^([A-Za-z0-9-]+)[ \t]*$", text, re.MULTILINE)}


def parse(text: str, path: str) -> list[Turn]:
    """Every turn of one day file, in order."""
    day = day_of(path)
    lines = text.split("\n")
    turns: list[Turn] = []
    i = 0
    while i < len(lines):
        match = _HEADING.match(lines[i])
        if not match:
            i += 1
            continue
        start, j = i, i + 1
        while j < len(lines) and not (_BLOCK.match(lines[j]) and not lines[j - 1].strip()):
            if _HEADING.match(lines[j]) and not lines[j - 1].strip():
                break
            j += 1
        block = _BLOCK.match(lines[j]) if j < len(lines) else None
        body = _unescape("\n".join(lines[start + 1:j]).strip("\n"))
        hh, mm, ss = (int(x) for x in match[1].split(":"))
        at = datetime(day.year, day.month, day.day, hh, mm, ss)
        turns.append(Turn(block[1] if block else f"line{start + 1}", at, match[2], match[3], body, path, start + 1))
        i = j + 1
    return turns




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
