"""The record of what `verify` has judged, so a routine verify judges only the commits since.

`.souveraine/verified.json` (a cache: git ignores it, deleting it costs one full replay)
holds the last commit judged, how many commits its history holds, the breaches found in
that history, the witness's standing where it was last re-checked, and a fingerprint of
the laws' code. It is trusted only
while the code is the same and the commit is still an ancestor of HEAD (an amend, a reset
or a rebase that drops it sends the next verify back to the first commit).

The tool's own commits, judged in-process by the same rules just before they are made,
move the record forward after the commit when it stood on the commit's parent
(``advance``): verifying a memory kept by the tool alone then judges nothing new.
"""

import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo

FILE = "verified.json"
VERSION = 1
# The code whose rules a verdict depends on: a change to any of it judges the history again.
_JUDGES = ("laws", "identity")
_ALSO = ("store/conventions.py", "store/notes.py", "store/layout.py")


@dataclass
class Record:
    commit: str
    commits: int                                   # commits in the history of ``commit``
    breaches: list[Breach] = field(default_factory=list)   # in that history
    standing: list[Breach] = field(default_factory=list)   # every witness as it stood at ``commit``
    witnessed: int = 0
    laws: str = ""
    witness_at: str = ""                           # where ``standing`` was found (``commit`` unless advanced)

    def __post_init__(self):
        self.witness_at = self.witness_at or self.commit

    def to_dict(self) -> dict:
        return {"version": VERSION, "commit": self.commit, "commits": self.commits, "laws": self.laws,
                "witness_at": self.witness_at, "witnessed": self.witnessed,
                "breaches": [b.to_dict() for b in self.breaches],
                "standing": [b.to_dict() for b in self.standing]}


def load(root: Path, repo: Repo | None = None, head: str | None = None) -> Record | None:
    """The record when it can be trusted for ``head``: same laws, its commit an ancestor."""
    record = _read(root)
    if record is None or record.laws != fingerprint():
        return None
    if head is not None and record.commit != head:
        repo = repo or Repo(root)
        if repo.run("merge-base", "--is-ancestor", record.commit, head, check=False).returncode != 0:
            return None
    return record


def save(root: Path, record: Record) -> None:
    """Written whole (temp file and rename); a cache, so not fsynced."""
    record.laws = record.laws or fingerprint()
    path = _path(root)
    try:
        path.parent.mkdir(exist_ok=True)
        temp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(record.to_dict(), ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        pass   # a read-only or full disk: the next verify judges more, nothing is wrong


def advance(root: Path, commit: str, parent: str) -> bool:
    """After the tool's own commit ``commit`` on ``parent``, judged in-process before it was
    made: the record moves to it when it stood on ``parent``."""
    record = _read(root)
    if record is None or record.commit != parent:
        return False
    record.commit, record.commits = commit, record.commits + 1
    save(root, record)
    return True


def after_commit(root: Path) -> None:
    """``advance`` for HEAD, its parent read from the new commit's loose object (no process)."""
    from souveraine.store import git

    head = git._loose_head(Path(root))
    if head is None or not _path(root).exists():
        return
    parents = _loose_parents(Path(root), head)
    if parents is not None and len(parents) == 1:
        advance(root, head, parents[0])


def fingerprint() -> str:
    """A hash of the code that judges: the laws, the identity rules, the conventions."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        package = Path(__file__).resolve().parent.parent
        files = sorted(f for folder in _JUDGES for f in (package / folder).glob("*.py"))
        files += [package / rel for rel in _ALSO]
        import hashlib

        digest = hashlib.sha256(str(VERSION).encode())
        for file in files:
            try:
                digest.update(file.name.encode() + b"\0" + file.read_bytes())
            except OSError:
                continue
        _FINGERPRINT = digest.hexdigest()[:16]
    return _FINGERPRINT


_FINGERPRINT: str | None = None


def _path(root: Path) -> Path:
    from souveraine.store.memory import CACHE_DIR

    return Path(root) / CACHE_DIR / FILE


def _read(root: Path) -> Record | None:
    try:
        data = json.loads(_path(root).read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            return None
        return Record(data["commit"], int(data["commits"]), _breaches(data.get("breaches")),
                      _breaches(data.get("standing")), int(data.get("witnessed", 0)), data.get("laws", ""),
                      data.get("witness_at", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _breaches(rows) -> list[Breach]:
    return [Breach(r["path"], r["rule"], r["message"], r.get("commit")) for r in rows or []]


def _loose_parents(root: Path, sha: str) -> list[str] | None:
    """A commit's parents from its loose object; None when it is packed or not readable so."""
    try:
        data = zlib.decompress((root / ".git" / "objects" / sha[:2] / sha[2:]).read_bytes())
    except (OSError, zlib.error, ValueError):
        return None
    header, _, body = data.partition(b"\0")
    if not header.startswith(b"commit "):
        return None
    parents = []
    for line in body.split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[7:].decode("ascii"))
        elif not line.startswith(b"tree "):
            break
    return parents
