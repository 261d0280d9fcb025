"""The inner voice: what the subconscious noticed, one line a thought, append-only.

Each line is exactly ``[YYYY-MM-DD HH:MM] [URGENCY: low] — text`` in
system/metacognition/subconscious.md, whose tail every wake pins.
"""

import re
from dataclasses import dataclass
from datetime import datetime

from souveraine.language import patterns

PATH = "system/metacognition/subconscious.md"
URGENCIES = ("low", "medium", "high", "critical")
_LINE = patterns.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d)\] \[URGENCY: (low|medium|high|critical)\] — (.+)$")


@dataclass(frozen=True)
class Thought:
    at: datetime
    urgency: str
    text: str

    def render(self) -> str:
        return f"[{self.at:%Y-%m-%d %H:%M}] [URGENCY: {self.urgency}] — {one_line(self.text)}"

    def to_dict(self) -> dict:
        return {"at": self.at.isoformat(timespec="minutes"), "urgency": self.urgency, "text": self.text,
                "line": self.render()}


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def append(change, thoughts: list[Thought]) -> None:
    """Add the thoughts at the end of the inner voice, inside an open change."""
    if not thoughts:
        return
    path = change.memory.path(PATH)
    existing = path.read_bytes() if path.exists() else b""
    lead = "" if not existing or existing.endswith(b"\n") else "\n"
    change.append(PATH, lead + "".join(t.render() + "\n" for t in thoughts))


def parse(text: str) -> list[Thought]:
    thoughts = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            thoughts.append(Thought(datetime.strptime(match[1], "%Y-%m-%d %H:%M"), match[2], match[3]))
    return thoughts


def tail(memory, count: int = 12) -> list[Thought]:
    """The newest ``count`` thoughts, oldest first."""
    path = memory.path(PATH)
    return parse(path.read_text(encoding="utf-8"))[-count:] if path.exists() else []


QUESTION_HOURS = 2      # a flagged question stays on the agent's mind this long
NOTICE_HOURS = 24       # a "kept", "noted" or "saved" notice this long
_DUE = patterns.compile(r"^(?:Reflection is due|The archivist is due)\b")
_QUESTION = patterns.compile(r"may have gone unanswered\.$")
_NOTICE = patterns.compile(r"^(?:Kept\b|Noted a \w+ rule\b|\"[^\"]*\" promised to keep)")
_LEDGER_LINK = patterns.compile(r"\[\[ledger/(\w+)#\^([a-z][0-9a-f]{6})\]\]")


def live(memory, thoughts: list[Thought], now: datetime | None = None) -> list[Thought]:
    """The thoughts still worth the agent's attention, in order.

    A due notice goes once its tempo has run (the counts say it is no longer due); a
    flagged question after ``QUESTION_HOURS``; a thought about a ledger entry once the
    entry is closed or dropped; a "kept" or "noted" notice after ``NOTICE_HOURS``.
    Everything else stays.
    """
    from datetime import timedelta

    from souveraine.store import clock

    now = (now or clock.now()).replace(tzinfo=None)
    still_due = _still_due(memory)
    open_ids = None
    kept = []
    for thought in thoughts:
        age = now - thought.at
        if _DUE.match(thought.text) and not still_due.get(thought.text.split()[1 if thought.text.startswith("The") else 0], True):
            continue
        if _QUESTION.search(thought.text) and age > timedelta(hours=QUESTION_HOURS):
            continue
        if _NOTICE.match(thought.text) and age > timedelta(hours=NOTICE_HOURS):
            continue
        link = _LEDGER_LINK.search(thought.text)
        if link and not _NOTICE.match(thought.text):
            if open_ids is None:
                from souveraine.tempos import ledger

                open_ids = {e.id for e in ledger.entries(memory, open_only=True)}
            if link[2] not in open_ids:
                continue
        kept.append(thought)
    return kept


def _still_due(memory) -> dict[str, bool]:
    """{"Reflection": …, "archivist": …} from the message counts, when they are cached; {} when not."""
    from souveraine.tempos import counters

    if not (memory.cache / counters.CACHE).exists():
        return {}
    counts = counters.load(memory)
    config = memory.config
    reflection, archive = config["reflection"]["message_interval"], config["archivist"]["interval"]
    return {"Reflection": reflection > 0 and counts.reflection >= reflection,
            "archivist": archive > 0 and counts.archive >= archive}
