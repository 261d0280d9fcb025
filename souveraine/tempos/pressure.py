"""Context pressure: what wake pins plus the journal not yet synthesized, against the model's limit.

Pinned: every file of system/ (the inner voice only by the tail a wake shows) and the
constitutive memories, which surface in every wake. Not yet synthesized: the journal
after the newest synthesis's ``through`` day and ``through_turn`` block. Counts come
from file sizes and the model's characters per token (store.tokens), so a measure reads
only the inner voice, the memories' first lines and the unsynthesized journal.
"""

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from souveraine.errors import NoteError
from souveraine.language import patterns
from souveraine.store import clock, journal, notes, tokens
from souveraine.store.memory import Memory

SYNTHESIZED = "system/synthesized"
INNER_VOICE = "system/metacognition/subconscious.md"
_SPOKEN = patterns.compile(rb"^## \d\d:\d\d:\d\d \xc2\xb7 (?:user|assistant)\b", re.MULTILINE)
_ENTRY = patterns.compile(r"^\[\d{4}-\d\d-\d\d", re.MULTILINE)


@dataclass(frozen=True)
class Pressure:
    model: str
    pinned_tokens: int
    unsynthesized_tokens: int
    context_limit: int
    threshold: float
    messages: int = 0      # user and assistant turns not yet synthesized
    interval: int = 0      # messages after which the archivist runs whatever the pressure

    @property
    def tokens(self) -> int:
        return self.pinned_tokens + self.unsynthesized_tokens

    @property
    def ratio(self) -> float:
        return self.tokens / self.context_limit if self.context_limit else 0.0

    @property
    def over(self) -> bool:
        return self.ratio >= self.threshold

    @property
    def due(self) -> bool:
        """The archivist has work: unsynthesized messages, and the pressure or their number is high."""
        return self.messages > 0 and (self.over or (self.interval > 0 and self.messages >= self.interval))

    def to_dict(self) -> dict:
        return {"model": self.model, "tokens": self.tokens, "pinned_tokens": self.pinned_tokens,
                "unsynthesized_tokens": self.unsynthesized_tokens, "context_limit": self.context_limit,
                "ratio": round(self.ratio, 4), "threshold": self.threshold, "over": self.over,
                "messages": self.messages, "interval": self.interval, "due": self.due}


@dataclass(frozen=True)
class Mark:
    """Where the newest synthesis stops: its ``through`` day and, within it, its last turn."""
    path: str
    through: date
    turn: str | None = None


def measure(memory: Memory, model_name: str | None = None) -> Pressure:
    model = memory.config.model(model_name)
    threshold, interval = limits(memory, model)
    spans = pending(memory, last_synthesis(memory))
    unsynthesized = sum(len(text) for _, text in spans)
    messages = _own_messages(memory)
    if messages is None:
        messages = sum(len(_SPOKEN.findall(text)) for _, text in spans)
    return Pressure(model["name"], tokens.from_size(pinned_bytes(memory), model), tokens.from_size(unsynthesized, model),
                    model["context_limit"], threshold, messages, interval)


def unsynthesized_messages(memory: Memory) -> int:
    """User and assistant turns after the newest synthesis (what archive's interval counts); once
    the memory syncs, this device's own not yet synthesized (sync.own)."""
    mine = _own_messages(memory)
    if mine is not None:
        return mine
    return sum(len(_SPOKEN.findall(text)) for _, text in pending(memory, last_synthesis(memory)))


def _own_messages(memory: Memory) -> int | None:
    from souveraine.sync import own

    return own.count(memory, "synthesized")


def limits(memory: Memory, model: dict) -> tuple[float, int]:
    """The threshold and interval in force: whichever of [archivist] and the model's comes first."""
    section = memory.config["archivist"]
    return min(section["threshold"], model["archivist_threshold"]), min(section["interval"], model["archivist_interval"])


def pinned_bytes(memory: Memory) -> int:
    system = memory.root / "system"
    total = sum(_size(p) for p in system.rglob("*.md") if p.is_file()) if system.is_dir() else 0
    voice = memory.root / INNER_VOICE
    if voice.is_file():
        total += len(_tail(voice.read_bytes(), memory.config["wake"]["inner_voice_lines"])) - _size(voice)
    return total + sum(_size(p) for p in constitutive(memory))


def constitutive(memory: Memory) -> list[Path]:
    """The constitutive memories (pinned in every wake), from the catalog, not a folder scan."""
    from souveraine.identity.catalog import FOLDER, catalog

    found = catalog(memory).elevated
    return [memory.root / FOLDER / name for name, info in sorted(found.items()) if info.get("tier") == "constitutive"]


def last_synthesis(memory: Memory) -> Mark | None:
    """The newest synthesis in system/synthesized/ (by ``through``, then name), or None."""
    folder = memory.root / SYNTHESIZED
    newest = None
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
        try:
            meta = notes.peek(path, "through", "through_turn")
        except (NoteError, OSError, UnicodeDecodeError):
            continue
        through = clock.as_day(meta.get("through"))
        if through is not None and (newest is None or through >= newest.through):
            newest = Mark(memory.rel(path), through, str(meta.get("through_turn") or "") or None)
    return newest


def pending(memory: Memory, mark: Mark | None) -> list[tuple[str, bytes]]:
    """The journal not yet synthesized: (day file, its unsynthesized bytes), oldest first."""
    spans = []
    for relpath in journal.days(memory.root, since=mark.through if mark else None):
        data = (memory.root / relpath).read_bytes()
        if mark and journal.day_of(relpath) == mark.through:
            data = data[after_block(data, mark.turn):] if mark.turn else b""
        if data:
            spans.append((relpath, data))
    return spans


def after_block(data: bytes, block: str) -> int:
    """The offset just past ``^block`` in a day file (its end when the block is not there)."""
    match = re.search(rb"^\^" + re.escape(block.encode()) + rb"[ \t]*(?:\n|\Z)", data, re.MULTILINE)
    return match.end() if match else len(data)


def _tail(data: bytes, lines: int) -> bytes:
    text = data.decode("utf-8", "replace")
    starts = [m.start() for m in _ENTRY.finditer(text)]
    if not starts or lines <= 0:
        return b""
    return text[starts[-lines] if len(starts) >= lines else starts[0]:].encode("utf-8")


def _size(path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
