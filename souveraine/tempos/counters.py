"""Messages since the last reflection and the last synthesis, counted as persist goes.

Counting from the journal on every turn would read a year of files; instead a small
cache, ``.souveraine/counters.json`` (git-ignored), remembers the counts and how far into
the journal they are true (the newest day file and its size). Each call reads only what
was appended since — a reflection entry written by ``reflect`` resets the count there —
and rebuilds from the journal (``store.journal.messages_since``) when the cache is
missing, unreadable, or the journal shrank under it.

"Since the last archive" means user and assistant turns on journal days after the newest
synthesis's ``through`` date, the same line ``tempos.pressure`` draws; a change in
system/synthesized/ (its folder's mtime) triggers that recount.
"""

import json
from dataclasses import dataclass
from datetime import timedelta

from souveraine.store import clock, journal
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

CACHE = "counters.json"
SYNTHESIZED = "system/synthesized"
_VERSION = 1
MESSAGES = ("user", "assistant")


@dataclass
class Counts:
    reflection: int = 0       # user and assistant turns since the last reflection entry
    archive: int = 0          # … since the last synthesis
    file: str = ""            # the newest journal day file these counts include…
    size: int = 0             # …up to this many bytes
    synthesized: int = 0      # mtime_ns of system/synthesized when last looked at

    def add(self, turns) -> None:
        for turn in turns:
            if turn.role == "reflection":
                self.reflection = 0
            elif turn.role in MESSAGES:
                self.reflection += 1
                self.archive += 1


def load(memory: Memory) -> Counts:
    """The counts, true for the journal as it is now."""
    counts = _read(memory)
    if counts is None or not _catch_up(memory, counts):
        counts = rebuild(memory)
    stamp = _synthesized_stamp(memory)
    if stamp != counts.synthesized:
        counts.archive = _since_synthesis(memory)
        counts.synthesized = stamp
    return counts


def advance(memory: Memory, counts: Counts, turns, newest: str | None) -> None:
    """Count turns just appended, and move the mark to the end of ``newest``."""
    counts.add(turns)
    if newest and (not counts.file or journal.day_of(newest) >= journal.day_of(counts.file)):
        counts.file = newest
        counts.size = memory.path(newest).stat().st_size


def save(memory: Memory, counts: Counts) -> None:
    data = {"version": _VERSION, **counts.__dict__}
    atomic_write(memory.cache / CACHE, json.dumps(data, indent=1) + "\n")


def forget(memory: Memory) -> None:
    """Drop the cache, so the next count is rebuilt from the journal: a merge (sync) may have set
    another device's turns anywhere in a day file, not only after the mark."""
    (memory.cache / CACHE).unlink(missing_ok=True)


def rebuild(memory: Memory) -> Counts:
    days = journal.days(memory.root)
    newest = days[-1] if days else ""
    return Counts(
        reflection=journal.messages_since(memory.root, "reflection"),
        archive=_since_synthesis(memory),
        file=newest,
        size=memory.path(newest).stat().st_size if newest else 0,
        synthesized=_synthesized_stamp(memory),
    )


def _read(memory: Memory) -> Counts | None:
    try:
        data = json.loads((memory.cache / CACHE).read_text(encoding="utf-8"))
        if data.pop("version") != _VERSION:
            return None
        return Counts(**data)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _catch_up(memory: Memory, counts: Counts) -> bool:
    """Read what was appended since the mark; False when only a rebuild can tell."""
    if not counts.file:
        return not journal.days(memory.root)
    try:
        first = journal.day_of(counts.file)
    except ValueError:
        return False
    last = max(first, clock.now().date())
    day = first
    while day <= last:
        relpath = journal.day_path(day)
        full = memory.path(relpath)
        if relpath == counts.file:
            if not full.exists():
                return False
            data = full.read_bytes() if full.stat().st_size != counts.size else b""
            if data and len(data) < counts.size:
                return False
            counts.add(journal.parse(data[counts.size:].decode("utf-8", "replace"), relpath) if data else [])
        elif full.exists():
            counts.add(journal.read_day(memory.root, relpath))
        if full.exists():
            counts.file, counts.size = relpath, full.stat().st_size
        day += timedelta(days=1)
    return True


def _synthesized_stamp(memory: Memory) -> int:
    try:
        return (memory.root / SYNTHESIZED).stat().st_mtime_ns
    except OSError:
        return 0


def _since_synthesis(memory: Memory) -> int:
    from souveraine.tempos.pressure import unsynthesized_messages

    return unsynthesized_messages(memory)
