"""The ledger: commitments, assumptions, patterns and drift, one Markdown file each.

Every entry is one task line, readable in any editor and ticked in Obsidian::

    - [ ] open · "I'll commit that." · commit · [[journal/2026/11/2026-11-30#^t143205a1b2c|2026-11-30 14:32]] ^c3fa9c2
    - [x] closed · "I'll commit that." · commit · [[…]] · closed by [[journal/…#^t150210a77e1|2026-11-30 15:02]] ^c3fa9c2

status, the words (quoted), a label (a promise's kind, or any word), the source turn,
how it ended, and the entry's id as an Obsidian block id, so ``[[ledger/commitments#^c3fa9c2]]``
links to it. Ticking the box by hand counts as closing it.
"""

import hashlib
import re
from dataclasses import dataclass

from souveraine.errors import UsageError
from souveraine.store.memory import Memory

FOLDER = "ledger"
KINDS = {"commitments": "c", "assumptions": "a", "patterns": "p", "drift": "d"}
_ALIASES = {"commitment": "commitments", "assumption": "assumptions", "pattern": "patterns", "drifts": "drift"}
_ENTRY = re.compile(
    r'^- \[(?P<box>[ xX])\] (?P<status>[a-z]+) · "(?P<text>.*)" · (?P<label>[\w-]+) · (?P<source>\[\[[^\]]*\]\])'
    r'(?: · (?P<how>[a-z]+(?: [a-z]+)?) (?P<ended>\[\[[^\]]*\]\]))? \^(?P<id>[a-z][0-9a-f]{6})\s*$')
_MAX_TEXT = 240


@dataclass(frozen=True)
class Entry:
    kind: str        # commitments | assumptions | patterns | drift
    id: str
    status: str      # open | closed | confirmed | dropped | …
    text: str
    label: str
    source: str      # [[journal/…#^block|…]]
    how: str = ""    # "closed by", "dropped by"…
    ended: str = ""  # the link that ended it

    @property
    def open(self) -> bool:
        return self.status == "open"

    @property
    def link(self) -> str:
        return f"[[{FOLDER}/{self.kind}#^{self.id}]]"

    def render(self) -> str:
        box = " " if self.open else "x"
        end = f" · {self.how} {self.ended}" if self.ended else ""
        return f'- [{box}] {self.status} · "{self.text}" · {self.label} · {self.source}{end} ^{self.id}'

    def to_dict(self) -> dict:
        return {"kind": self.kind, "id": self.id, "status": self.status, "text": self.text, "label": self.label,
                "source": self.source, "ended": self.ended, "how": self.how, "link": self.link}


def kind_of(name: str) -> str:
    kind = _ALIASES.get(name, name)
    if kind not in KINDS:
        raise UsageError(f"no ledger '{name}'; use one of: {', '.join(KINDS)}")
    return kind


def path(kind: str) -> str:
    return f"{FOLDER}/{kind_of(kind)}.md"


def clean(text: str) -> str:
    """The words as one line that cannot break the entry's format."""
    text = re.sub(r"\s+", " ", text).replace(" · ", " - ").strip()
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 1].rstrip() + "…"


def entry_id(kind: str, source: str, text: str) -> str:
    return KINDS[kind] + hashlib.sha1(f"{source}\0{clean(text)}".encode()).hexdigest()[:6]


def parse(kind: str, text: str) -> list[Entry]:
    found = []
    for line in text.splitlines():
        match = _ENTRY.match(line)
        if match:
            status = match["status"]
            if match["box"] != " " and status == "open":
                status = "closed"
            found.append(Entry(kind, match["id"], status, match["text"], match["label"], match["source"],
                               match["how"] or "", match["ended"] or ""))
    return found


def entries(memory: Memory, kind: str | None = None, open_only: bool = False) -> list[Entry]:
    """Entries of one ledger (or all four), in file order."""
    kinds = [kind_of(kind)] if kind else list(KINDS)
    found = []
    for name in kinds:
        full = memory.path(path(name))
        if full.exists():
            found += [e for e in parse(name, full.read_text(encoding="utf-8")) if e.open or not open_only]
    return found


def add(change, kind: str, text: str, label: str, source: str) -> Entry | None:
    """Append an open entry inside a change; None when the same entry is already there."""
    kind = kind_of(kind)
    entry = Entry(kind, entry_id(kind, source, text), "open", clean(text), label, source)
    relpath = path(kind)
    full = change.memory.path(relpath)
    existing = full.read_text(encoding="utf-8") if full.exists() else ""
    if any(e.id == entry.id for e in parse(kind, existing)):
        return None
    lead = "" if not existing or existing.endswith("\n") else "\n"
    change.append(relpath, lead + entry.render() + "\n")
    return entry


def end(change, kind: str, ids: set[str], by: str, status: str = "closed", how: str = "closed by") -> list[Entry]:
    """Mark entries ended (closed, confirmed, dropped) with the link to what ended them."""
    kind = kind_of(kind)
    relpath = path(kind)
    full = change.memory.path(relpath)
    if not ids or not full.exists():
        return []
    ended, lines = [], []
    for line in full.read_text(encoding="utf-8").split("\n"):
        match = _ENTRY.match(line)
        if match and match["id"] in ids:
            old = parse(kind, line)[0]
            new = Entry(kind, old.id, status, old.text, old.label, old.source, how, by)
            line = new.render()
            ended.append(new)
        lines.append(line)
    if ended:
        change.write(relpath, "\n".join(lines))
    return ended
