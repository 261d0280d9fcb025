"""The inner voice: what the subconscious noticed, one line a thought, append-only.

Each line is exactly ``[YYYY-MM-DD HH:MM] [URGENCY: low] — text`` in
system/metacognition/subconscious.md, whose tail every wake pins.
"""

import re
from dataclasses import dataclass
from datetime import datetime

PATH = "system/metacognition/subconscious.md"
URGENCIES = ("low", "medium", "high", "critical")
_LINE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d)\] \[URGENCY: (low|medium|high|critical)\] — (.+)$")


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
