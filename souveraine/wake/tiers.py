"""Memories by tier, without reading every file at every wake.

The total is the number of files in memories/ (one directory listing). The elevated ones
(foundational and constitutive) are few; they are kept in a rebuildable cache,
``.souveraine/wake-tiers.json``, keyed by the git tree of memories/ at HEAD. When that tree
moves, only the files git names as changed since the cached tree are read again (the first
lines of each); with no usable cache, every file's first lines are read once.
Uncommitted edits are not seen until they are committed, as every tool commits its own.
"""

import json
import os
import re

from souveraine.store import git
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

FOLDER = "memories"
CACHE = "wake-tiers.json"
ELEVATED = ("foundational", "constitutive")
_FIELD = re.compile(rb"^(tier|identity_id|visibility|elevated|created):[ \t]*['\"]?([^'\"\n]*?)['\"]?[ \t]*$", re.MULTILINE)


def names(memory: Memory) -> list[str]:
    """The memory files' names (not sorted): one listing, nothing read."""
    try:
        with os.scandir(memory.root / FOLDER) as entries:
            return [e.name for e in entries if e.name.endswith(".md") and not e.name.startswith(".")]
    except FileNotFoundError:
        return []


def head(path) -> dict[str, str]:
    """The frontmatter fields wake needs, from the file's first bytes (no YAML parser)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(4096)
    except OSError:
        return {}
    if not data.startswith(b"---"):
        return {}
    end = data.find(b"\n---", 3)
    front = data[: end if end > 0 else len(data)]
    return {m[1].decode(): m[2].decode("utf-8", "replace").strip() for m in _FIELD.finditer(front)}


def elevated(memory: Memory) -> dict[str, dict]:
    """``{name: {tier, identity_id, visibility, elevated, created}}`` for every elevated memory."""
    tree = _tree(memory)
    cached = _load(memory)
    if tree and cached.get("tree") == tree:
        return cached["elevated"]
    found = _updated(memory, cached, tree) if tree and cached.get("tree") else None
    if found is None:
        found = _scan(memory, names(memory))
    if tree:
        _save(memory, {"tree": tree, "elevated": found})
    return found


def totals(listed: list[str], lifted: dict[str, dict]) -> dict[str, int]:
    present = set(listed)
    counts = {tier: sum(1 for name, info in lifted.items() if info["tier"] == tier and name in present)
              for tier in ELEVATED}
    return {"all": len(listed), "episodic": len(listed) - sum(counts.values()), **counts}


def _scan(memory: Memory, listed: list[str]) -> dict[str, dict]:
    folder = memory.root / FOLDER
    found = {}
    for name in listed:
        info = head(folder / name)
        if info.get("tier") in ELEVATED:
            found[name] = info
    return found


def _updated(memory: Memory, cached: dict, tree: str) -> dict[str, dict] | None:
    done = git.run(memory.root, "diff-tree", "-r", "-z", "--name-status", cached["tree"], tree, check=False)
    if done.returncode != 0:
        return None
    found = dict(cached["elevated"])
    fields = done.stdout.split("\0")
    changed = []
    for status, name in zip(fields[0::2], fields[1::2]):
        found.pop(name, None)
        if status[:1] != "D" and name.endswith(".md") and "/" not in name:
            changed.append(name)
    found.update(_scan(memory, changed))
    return found


def _tree(memory: Memory) -> str | None:
    done = git.run(memory.root, "rev-parse", "-q", "--verify", f"HEAD:{FOLDER}", check=False)
    return done.stdout.strip() or None


def _load(memory: Memory) -> dict:
    try:
        data = json.loads((memory.cache / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("elevated"), dict) else {}


def _save(memory: Memory, data: dict) -> None:
    try:
        atomic_write(memory.cache / CACHE, json.dumps(data, sort_keys=True))
    except OSError:
        pass   # a read-only memory still wakes; the cache is only a saving
