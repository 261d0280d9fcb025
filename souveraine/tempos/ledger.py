"""The ledger: commitments, assumptions, patterns and drift, one Markdown file each.

Every entry is one task line, readable in any editor and ticked in Obsidian::

    - [ ] open · "I'll commit that." · commit · [[journal/2026/11/2026-11-30#^t143205a1b2c|2026-11-30 14:32]] ^c3fa9c2
    - [x] closed · "I'll commit that." · commit · [[…]] · closed by [[journal/…#^t150210a77e1|2026-11-30 15:02]] ^c3fa9c2

status, the words (quoted), a label (a promise's kind, or any word), the source turn,
how it ended, and the entry's id as an Obsidian block id, so ``[[ledger/commitments#^c3fa9c2]]``
links to it. A dated commitment carries its due time (`` · due 2026-12-03``); one closed or
dropped by hand (``souveraine ledger close ID --note …``) says so
(`` · closed by hand on 2026-12-01 14:32 (the note)``). Ticking the box by hand counts as
closing it.
"""

import re
from dataclasses import dataclass

from souveraine.errors import UsageError
from souveraine.language import patterns
from souveraine.store.memory import Memory
from souveraine.store import hashing

FOLDER = "ledger"
KINDS = {"commitments": "c", "assumptions": "a", "patterns": "p", "drift": "d"}
_ALIASES = {"commitment": "commitments", "assumption": "assumptions", "pattern": "patterns", "drifts": "drift"}
_ENTRY = patterns.compile(
    r'^- \[(?P<box>[ xX])\] (?P<status>[a-z]+) · "(?P<text>.*)" · (?P<label>[\w-]+) · (?P<source>\[\[[^\]]*\]\])'
    r'(?: · due (?P<due>\d{4}-\d\d-\d\d(?: \d\d:\d\d)?))?'
    r'(?: · (?P<how>[a-z]+(?: [a-z]+)?) (?P<ended>\[\[[^\]]*\]\]|hand on \d{4}-\d\d-\d\d \d\d:\d\d)'
    r'(?: \((?P<note>[^()]*)\))?)? \^(?P<id>[a-z][0-9a-f]{6})\s*$')
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
    ended: str = ""  # the link that ended it, or "hand on YYYY-MM-DD HH:MM"
    due: str = ""    # YYYY-MM-DD[ HH:MM]: when a dated commitment falls due
    note: str = ""   # why it was closed or dropped by hand

    @property
    def open(self) -> bool:
        return self.status == "open"

    @property
    def link(self) -> str:
        return f"[[{FOLDER}/{self.kind}#^{self.id}]]"

    def render(self) -> str:
        box = " " if self.open else "x"
        due = f" · due {self.due}" if self.due else ""
        note = f" ({self.note})" if self.note else ""
        end = f" · {self.how} {self.ended}{note}" if self.ended else ""
        return f'- [{box}] {self.status} · "{self.text}" · {self.label} · {self.source}{due}{end} ^{self.id}'

    def to_dict(self) -> dict:
        data = {"kind": self.kind, "id": self.id, "status": self.status, "text": self.text, "label": self.label,
                "source": self.source, "ended": self.ended, "how": self.how, "link": self.link}
        if self.due:
            data["due"] = self.due
        if self.note:
            data["note"] = self.note
        return data


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
    return KINDS[kind] + hashing.sha1(f"{source}\0{clean(text)}".encode()).hexdigest()[:6]


def parse(kind: str, text: str) -> list[Entry]:
    found = []
    for line in text.splitlines():
        match = _ENTRY.match(line)
        if match:
            status = match["status"]
            if match["box"] != " " and status == "open":
                status = "closed"
            found.append(Entry(kind, match["id"], status, match["text"], match["label"], match["source"],
                               match["how"] or "", match["ended"] or "", match["due"] or "", match["note"] or ""))
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


def add(change, kind: str, text: str, label: str, source: str, due: str = "") -> Entry | None:
    """Append an open entry inside a change; None when the same entry is already there."""
    kind = kind_of(kind)
    entry = Entry(kind, entry_id(kind, source, text), "open", clean(text), label, source, due=due)
    relpath = path(kind)
    full = change.memory.path(relpath)
    existing = full.read_text(encoding="utf-8") if full.exists() else ""
    if any(e.id == entry.id for e in parse(kind, existing)):
        return None
    lead = "" if not existing or existing.endswith("\n") else "\n"
    change.append(relpath, lead + entry.render() + "\n")
    return entry


def end(change, kind: str, ids: set[str], by: str, status: str = "closed", how: str = "closed by",
        note: str = "") -> list[Entry]:
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
            new = Entry(kind, old.id, status, old.text, old.label, old.source, how, by, old.due,
                        clean(note).replace("(", "[").replace(")", "]") if note else "")
            line = new.render()
            ended.append(new)
        lines.append(line)
    if ended:
        change.write(relpath, "\n".join(lines))
    return ended


def find(memory: Memory, entry_id: str) -> Entry:
    """The entry with this id (or the one id it begins), from any ledger."""
    wanted = entry_id.strip().lstrip("^")
    if not re.fullmatch(r"[a-z][0-9a-f]{1,6}", wanted):
        raise UsageError(f"'{entry_id}' is not a ledger id; ids look like c3fa9c2 (souveraine ledger --open lists them)")
    found = [e for e in entries(memory) if e.id.startswith(wanted)]
    if not found:
        raise UsageError(f"no ledger entry '{entry_id}'; souveraine ledger --open lists the open ones")
    if len(found) > 1:
        raise UsageError(f"'{entry_id}' names {len(found)} entries ({', '.join(e.id for e in found)}); give more of the id")
    return found[0]


def settle(memory: Memory, entry_id: str, status: str, note: str = "") -> dict:
    """Close (kept) or drop (not to be kept) an open entry by hand, in one commit.

    A commitment's waiting reminder leaves the inbox with it.
    """
    from souveraine.errors import Refused
    from souveraine.store import clock
    from souveraine.tempos import inbox

    if status not in ("closed", "dropped"):
        raise UsageError(f"an entry is closed or dropped by hand, not '{status}'")
    entry = find(memory, entry_id)
    if not entry.open:
        raise Refused(f"{entry.id} is already {entry.status}; nothing to do")
    verb = "close" if status == "closed" else "drop"
    stamp = f"hand on {clock.now():%Y-%m-%d %H:%M}"
    with memory.change(f"chore(ledger): {verb} {entry.id} by hand") as change:
        [ended] = end(change, entry.kind, {entry.id}, stamp, status, f"{status} by", note)
        withdrawn = inbox.withdraw(change, {"i" + entry.id[1:]}) if entry.kind == "commitments" else []
    return {**ended.to_dict(), "withdrawn": withdrawn, "commit": change.sha}
