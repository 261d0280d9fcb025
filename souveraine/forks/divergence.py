"""How far a fork has drifted from who the parent is: changed lines in its identity files.

Counted as git's numstat (lines added + lines deleted) under system/ and identities/,
from the fork point to what would come back. system/state.md is left out: it is each
self's working state, and integration always keeps the parent's.
"""

from dataclasses import dataclass, field
from pathlib import Path

from souveraine.store import git

PATHS = ("system", "identities")
EXCLUDED = ("system/state.md",)


@dataclass
class Divergence:
    lines: int = 0
    files: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"lines": self.lines, "files": self.files}

    def add(self, other: "Divergence") -> "Divergence":
        merged: dict[str, dict] = {f["path"]: dict(f) for f in self.files}
        for f in other.files:
            entry = merged.setdefault(f["path"], {"path": f["path"], "added": 0, "deleted": 0})
            entry["added"] += f["added"]
            entry["deleted"] += f["deleted"]
        return Divergence(self.lines + other.lines, sorted(merged.values(), key=lambda f: f["path"]))


def between(root: Path, base: str, tip: str) -> Divergence:
    """Changed lines in system/ and identities/ from ``base`` to ``tip``."""
    done = git.run(root, "diff", "--numstat", "--no-renames", base, tip, "--", *PATHS,
                   *(f":(exclude){p}" for p in EXCLUDED))
    files = []
    for line in done.stdout.splitlines():
        added, deleted, path = line.split("\t", 2)
        # A binary file counts one line per side it exists on.
        files.append({"path": path, "added": _count(added), "deleted": _count(deleted)})
    return Divergence(sum(f["added"] + f["deleted"] for f in files), files)


def since_fork_point(root: Path, parent: str, branch: str) -> Divergence:
    """The fork's own changes: from the fork point (the merge base) to the branch's tip."""
    base = git.run(root, "merge-base", parent, branch).stdout.strip()
    return between(root, base, branch)


def of_commits(root: Path, commits: list[str]) -> Divergence:
    """What cherry-picking ``commits`` would bring back: each commit against its first parent."""
    total = Divergence()
    for sha in commits:
        total = total.add(between(root, f"{sha}^", sha))
    return total


def _count(value: str) -> int:
    return 1 if value == "-" else int(value)
