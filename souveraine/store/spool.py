"""The write-ahead spool: what persist was given is on disk before anything can fail or wait.

One file per exchange in ``.souveraine/spool/``, named so that names sort in arrival
order (``<ns>-<pid>-<hex>.json``), written by ``atomic_write`` (fsynced, renamed, folder
fsynced) without taking the memory's lock. A file leaves the spool only after the commit
that journals it: a kill, a busy lock, git's own index lock or a merge in progress leave
it there, and the next command able to commit drains it — persist, ``persist --flush``,
``doctor --fix``, the scheduler, and sync after a merge (``drain``).

Unlike the rest of ``.souveraine/``, the spool is not a cache: it holds words said.
"""

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from souveraine.store.atomic import atomic_write

FOLDER = "spool"
_VERSION = 1


@dataclass
class Entry:
    name: str
    path: Path
    record: dict

    @property
    def attempts(self) -> int:
        return int(self.record.get("attempts") or 0)


def folder(memory) -> Path:
    return memory.cache / FOLDER


def put(memory, record: dict) -> Entry:
    """Keep ``record`` durably; returns its entry (its name orders it among the others)."""
    name = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}.json"
    data = {"version": _VERSION, "pid": os.getpid(), **record}
    path = folder(memory) / name
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    return Entry(name, path, data)


def entries(memory, upto: str | None = None) -> list[Entry]:
    """The entries waiting, oldest first (only those up to ``upto``'s name when given).

    A file that does not read as an entry is left where it is for doctor to report."""
    base = folder(memory)
    try:
        names = sorted(n for n in os.listdir(base) if n.endswith(".json") and not n.startswith("."))
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        if upto is not None and name > upto:
            break
        record = read(base / name)
        if record is not None:
            found.append(Entry(name, base / name, record))
    return found


def read(path: Path) -> dict | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("version") == _VERSION else None


def unreadable(memory) -> list[Path]:
    """Spool files that are not entries (damaged by hand, or from a newer version)."""
    base = folder(memory)
    try:
        names = sorted(n for n in os.listdir(base) if n.endswith(".json") and not n.startswith("."))
    except FileNotFoundError:
        return []
    return [base / n for n in names if read(base / n) is None]


def failed(entry: Entry, error: str) -> None:
    """Count a failed attempt at journaling ``entry`` (drains degrade it, then set it aside)."""
    entry.record["attempts"] = entry.attempts + 1
    entry.record["error"] = error[:500]
    atomic_write(entry.path, json.dumps(entry.record, ensure_ascii=False, indent=1) + "\n")


def retry(entry: Entry) -> None:
    """Forget an entry's failed attempts (a person mended the cause)."""
    entry.record["attempts"] = 0
    entry.record.pop("error", None)
    atomic_write(entry.path, json.dumps(entry.record, ensure_ascii=False, indent=1) + "\n")


def remove(memory, done: list[Entry]) -> None:
    """Forget entries their commit now holds."""
    for entry in done:
        entry.path.unlink(missing_ok=True)
    if done:
        _fsync(folder(memory))


def drain(memory) -> dict:
    """Journal and commit every entry waiting, oldest first, as one commit.

    For callers that just made committing possible again (sync after a merge, doctor
    --fix). The spool holds exchanges and only persist knows how to journal one, hence
    the one call upward from the store.
    """
    from souveraine.tempos.persist import flush

    return flush(memory)


def _fsync(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
