"""The inbox: thoughts waiting to surface, surfacing now, and the log of what surfaced.

Three Markdown files in inbox/. An item is one list line::

    - [2026-11-30 14:32] [URGENCY: high] Unfulfilled promise: "I'll commit that" from 14:32 ^i3fa9c2

``pending.md`` holds what waits, ``intrusive.md`` what surfaced into the current turn,
``sent.md`` the append-only log of every delivery with its time and viewport. A line a
person adds by hand (``- call the plumber``) is an item too, of medium urgency. An item
with a due time (``[due: 2026-12-03 08:00]``, a dated promise's) waits in pending.md until
then: it is not ripe, and does not surface.
"""

import re
from dataclasses import dataclass, field
from datetime import datetime

from souveraine.errors import Refused, UsageError
from souveraine.language import patterns
from souveraine.store import clock
from souveraine.store.memory import Memory
from souveraine.store import hashing

PENDING = "inbox/pending.md"
INTRUSIVE = "inbox/intrusive.md"
SENT = "inbox/sent.md"
QUEUES = {"pending": PENDING, "intrusive": INTRUSIVE, "sent": SENT}
URGENCIES = ("low", "medium", "high", "critical")
_ITEM = patterns.compile(r"^- \[(\d{4}-\d\d-\d\d \d\d:\d\d)\] (?:\[viewport: (\w+)\] )?"
                   r"\[URGENCY: (low|medium|high|critical)\] (?:\[due: (\d{4}-\d\d-\d\d \d\d:\d\d)\] )?"
                   r"(.+?)(?: \^(i[0-9a-f]{6}))?\s*$")
_LOOSE = patterns.compile(r"^- (?!\[[ xX]\] )(\S.*?)\s*$")


@dataclass(frozen=True)
class Item:
    at: datetime | None
    urgency: str
    text: str
    id: str
    viewport: str = ""
    raw: str = field(default="", compare=False)   # the line as it stands in its file
    due: datetime | None = None                   # not to surface before this time

    @property
    def rank(self) -> int:
        return URGENCIES.index(self.urgency)

    def ripe(self, now: datetime) -> bool:
        """May it surface at ``now``? Always, unless its due time is still to come."""
        return self.due is None or self.due <= now.replace(tzinfo=None)

    def render(self) -> str:
        when = f"{self.at:%Y-%m-%d %H:%M}" if self.at else "0000-00-00 00:00"
        where = f"[viewport: {self.viewport}] " if self.viewport else ""
        due = f"[due: {self.due:%Y-%m-%d %H:%M}] " if self.due else ""
        return f"- [{when}] {where}[URGENCY: {self.urgency}] {due}{one_line(self.text)} ^{self.id}"

    def to_dict(self) -> dict:
        data = {"id": self.id, "at": self.at.isoformat(timespec="minutes") if self.at else None,
                "urgency": self.urgency, "text": self.text}
        if self.viewport:
            data["viewport"] = self.viewport
        if self.due:
            data["due"] = self.due.isoformat(timespec="minutes")
        return data


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def item_id(text: str, salt: str = "") -> str:
    return "i" + hashing.sha1(f"{salt}\0{one_line(text)}".encode()).hexdigest()[:6]


def new_item(text: str, urgency: str = "medium", at: datetime | None = None, id: str | None = None,
             due: datetime | None = None) -> Item:
    if not text or not text.strip():
        raise UsageError("the inbox item's text is empty; give the thought to queue")
    if urgency not in URGENCIES:
        raise UsageError(f"urgency must be one of {', '.join(URGENCIES)}, not '{urgency}'")
    at = (at or clock.now()).replace(second=0, microsecond=0)
    due = due.replace(tzinfo=None, second=0, microsecond=0) if due else None
    return Item(at, urgency, one_line(text), id or item_id(text, f"{at:%Y-%m-%d %H:%M}"), due=due)


def parse_line(line: str) -> Item | None:
    match = _ITEM.match(line)
    if match:
        stamp, viewport, urgency, due, text, ident = match.groups()
        at = None if stamp.startswith("0000") else datetime.strptime(stamp, "%Y-%m-%d %H:%M")
        due = datetime.strptime(due, "%Y-%m-%d %H:%M") if due else None
        return Item(at, urgency, text, ident or item_id(text, stamp), viewport or "", line, due)
    loose = _LOOSE.match(line)
    if loose:
        return Item(None, "medium", loose[1], item_id(loose[1]), "", line)
    return None


@dataclass
class Queue:
    """One inbox file: its lines, and the items among them."""

    relpath: str
    lines: list[str]

    @property
    def items(self) -> list[Item]:
        found = []
        in_frontmatter = bool(self.lines) and self.lines[0].strip() == "---"
        for n, line in enumerate(self.lines):
            if in_frontmatter:
                in_frontmatter = not (n > 0 and line.strip() == "---")
                continue
            item = parse_line(line)
            if item:
                found.append(item)
        return found

    def text_without(self, ids: set[str]) -> str:
        keep = []
        for line in self.lines:
            item = parse_line(line)
            if not (item and item.id in ids and item.raw == line):
                keep.append(line)
        return "\n".join(keep)

    def text_with(self, items: list[Item], without: set[str] = frozenset()) -> str:
        text = self.text_without(set(without)).rstrip("\n")
        if text and items and text.rsplit("\n", 1)[-1].startswith("#"):
            text += "\n"   # a blank line between the heading and the first item
        return (text + "\n" if text else "") + "".join(item.render() + "\n" for item in items)


def read(memory: Memory, relpath: str) -> Queue:
    path = memory.path(relpath)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return Queue(relpath, text.split("\n") if text else [])


def by_urgency(items: list[Item]) -> list[Item]:
    """Most urgent first, then oldest (an undated, hand-written item counts as oldest)."""
    return sorted(items, key=lambda i: (-i.rank, i.at or datetime.min))


def enabled(memory: Memory) -> bool:
    return bool(memory.config["subconscious"]["inbox_enabled"])


def queue(change, items: list[Item]) -> list[Item]:
    """Append items to pending.md inside an open change; items already queued are skipped."""
    if not items:
        return []
    pending = read(change.memory, PENDING)
    known = {item.id for item in pending.items}
    fresh = [item for item in items if item.id not in known]
    if fresh:
        change.write(PENDING, pending.text_with(fresh))
    return fresh


def withdraw(change, ids: set[str]) -> list[str]:
    """Take items off pending.md (a commitment kept before its reminder surfaced)."""
    pending = read(change.memory, PENDING)
    gone = [item.id for item in pending.items if item.id in ids]
    if gone:
        change.write(PENDING, pending.text_without(set(gone)))
    return gone


def add(memory: Memory, text: str, urgency: str = "medium") -> dict:
    """Queue one thought by hand, and commit it."""
    if not enabled(memory):
        raise Refused("the inbox is off (inbox_enabled = false in souveraine.toml); switch it on to queue thoughts")
    item = new_item(text, urgency)
    with memory.change(f"chore(inbox): queue a {urgency} thought") as change:
        added = queue(change, [item])
    return {**item.to_dict(), "queued": bool(added), "commit": change.sha}


def items(memory: Memory, which: str = "pending") -> list[dict]:
    """The items of one queue (pending, intrusive or sent); pending in the order they would surface."""
    if which not in QUEUES:
        raise UsageError(f"no inbox queue '{which}'; use one of: {', '.join(QUEUES)}")
    found = read(memory, QUEUES[which]).items
    if which == "pending":
        found = by_urgency(found)
    return [{**item.to_dict(), "queue": which} for item in found]
