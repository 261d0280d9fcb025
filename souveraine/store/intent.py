"""What a change is about to write, on disk before it writes it: so a kill can be undone.

``.souveraine/changes/<pid>-<ns>/`` holds ``paths`` — one line per file the change
touches, appended and fsynced before the file is first written — and, for each file that
existed, a hard link to it as it was (``atomic_write`` replaces files by rename, so the
link keeps the old bytes without copying them). A change that journals exchanges from the
spool also records, before its commit, each spool file and the block ids its turns were
given. The folder goes when the change commits (and what followed its commit is done) or
rolls back. One left by a dead process is a change cut short: ``store.repair`` puts each
of its files back as it was, unless the file is what HEAD holds (it was committed), and
removes from the spool each exchange whose turns the files then hold (journaled and
committed: replaying it would journal it twice).
"""

import os
import time
from pathlib import Path

from souveraine.record import Record

FOLDER = "changes"
_ABSENT, _KEPT, _SPOOL = "absent", "kept", "spool"


def folder(memory) -> Path:
    return memory.cache / FOLDER


class Intent:
    def __init__(self, memory):
        self.memory = memory
        self.where = folder(memory) / f"{os.getpid()}-{time.time_ns()}"
        self._fd: int | None = None
        self._count = 0

    def _open(self) -> int:
        if self._fd is None:
            self.where.mkdir(parents=True)
            self._fd = os.open(self.where / "paths", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.write(self._fd, f"{os.getpid()}\t{process_start(os.getpid())}\n".encode())
        return self._fd

    def add(self, relpath: str, full: Path) -> None:
        """Record ``relpath`` (its current bytes kept by a hard link) before it is first written."""
        self._open()
        self._count += 1
        state = _ABSENT
        if full.is_file() and not full.is_symlink():
            keep = self.where / str(self._count)
            try:
                os.link(full, keep)
            except OSError:
                import shutil

                shutil.copy2(full, keep)
            state = _KEPT
        os.write(self._fd, f"{self._count}\t{state}\t{relpath}\n".encode("utf-8", "surrogateescape"))
        os.fsync(self._fd)

    def spooled(self, journaled: list[tuple[str, list[tuple[str, str]]]]) -> None:
        """Record, before the commit, each spool file this change journals and the turns it
        became (day file, block id): after a kill, what HEAD then holds says whether it was."""
        if not journaled:
            return
        fd = self._open()
        lines = "".join(f"{_SPOOL}\t{name}\t" + "\t".join(f"{path}#{block}" for path, block in ids) + "\n"
                        for name, ids in journaled)
        os.write(fd, lines.encode("utf-8", "surrogateescape"))
        os.fsync(fd)

    def close(self) -> None:
        """The change is over (committed, or rolled back): nothing to undo."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            import shutil

            shutil.rmtree(self.where, ignore_errors=True)


class Left(Record):
    """A change a dead process left: where it kept its record, and each path with its old bytes."""

    __slots__ = _fields = ("where", "pid", "paths", "spooled")

    def __init__(self, where: Path, pid: int, paths: list[tuple[str, Path | None]],
                 spooled: list[tuple[str, list[tuple[str, str]]]] | None = None):
        self.where, self.pid = where, pid
        self.paths = paths              # relpath, the kept copy (None: it did not exist)
        self.spooled = [] if spooled is None else spooled   # spool file, its turns


def left(memory) -> list[Left]:
    """Every change whose process is gone."""
    base = folder(memory)
    try:
        names = sorted(os.listdir(base))
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        where = base / name
        record = _read(where)
        if record is None:   # killed before its first line: the folder's name says whose it was
            pid = _named_pid(name)
            if (pid and not alive(pid)) or _older_than(where, 60):
                found.append(Left(where, pid, []))
            continue
        pid, started, paths, spooled = record
        if alive(pid, started):
            continue
        found.append(Left(where, pid, paths, spooled))
    return found


def _named_pid(name: str) -> int:
    head = name.split("-", 1)[0]
    return int(head) if head.isdigit() and "-" in name else 0


def _read(where: Path):
    try:
        lines = (where / "paths").read_bytes().decode("utf-8", "surrogateescape").split("\n")
    except (OSError, NotADirectoryError):
        return None
    head = lines[0].split("\t") if lines else []
    if len(head) != 2 or not head[0].isdigit():
        return None
    paths, spooled = [], []
    for line in lines[1:]:
        if line.startswith(_SPOOL + "\t"):
            name, *turns = line.split("\t")[1:]
            spooled.append((name, [tuple(t.rsplit("#", 1)) for t in turns if "#" in t]))
            continue
        parts = line.split("\t", 2)
        if len(parts) == 3 and parts[0].isdigit():
            paths.append((parts[2], where / parts[0] if parts[1] == _KEPT else None))
    return int(head[0]), head[1], paths, spooled


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except OSError:
        return False


def process_start(pid: int) -> str:
    """When ``pid`` started (clock ticks since boot, from /proc), so a reused pid is told apart."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


def alive(pid: int, started: str = "") -> bool:
    """Whether process ``pid`` is running (and is the one that started at ``started``); a
    zombie is not."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat(pid)
    if not fields:
        return True
    return fields[0] not in ("Z", "X") and (not started or fields[19] == started)


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command name (state first); [] where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return []
