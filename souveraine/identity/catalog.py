"""The memories/ catalog, without listing the folder: how many, the elevated few, the newest.

Memories are known here by their path inside memories/ (``2026/2026-12-01-….md``, or a bare
name for one not yet moved to its year folder); names start with the creation date, so the
newest are the largest names.

Wake, status and context pressure read it.

Listing a folder of 50,000 files alone costs 50–100 ms, so the answer is kept in a
rebuildable cache, ``.souveraine/wake-memories.json``: the count, the elevated memories'
first properties, and the newest names (names start with the creation date). It is trusted
while the mtimes of memories/ and of its year folders are unchanged (a stat each; every add,
delete or atomic rewrite in a folder moves its mtime, and a new year folder moves memories/'s)
— and recorded only when the folders last changed before HEAD last moved
(the reflog's mtime), so a file written and not yet committed is never taken as counted. When
the mtime moved, or was not recorded, the git tree of memories/ at HEAD decides:
another tree, ``git diff-tree`` names the files added, changed or deleted since, and only
those are read; the same tree, nothing committed changed, and git is asked again at the
next wake (a file written and not yet committed). With no usable cache the
committed tree is listed once and ``git grep`` finds the elevated candidates. Uncommitted files
count once committed, as every tool commits its own.
"""

import heapq
import json
import os
import re
from dataclasses import dataclass, field

from souveraine.language import patterns
from souveraine.store import git, layout
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

FOLDER = "memories"
CACHE = "wake-memories.json"
VERSION = 2
KEEP = 256                 # newest names kept: recent_items, with room for private ones skipped
ELEVATED = ("foundational", "constitutive")
_FIELD = patterns.compile(rb"^(tier|identity_id|visibility|elevated|created):[ \t]*['\"]?([^'\"\n]*?)['\"]?[ \t]*$", re.MULTILINE)
_LIFTED = r"^tier:[ \t]*['\"]?(foundational|constitutive)"


@dataclass
class Catalog:
    count: int = 0
    elevated: dict[str, dict] = field(default_factory=dict)   # name -> {tier, identity_id, visibility, elevated, created}
    newest: list[str] = field(default_factory=list)           # names, newest first

    def totals(self) -> dict[str, int]:
        counts = {tier: sum(1 for info in self.elevated.values() if info.get("tier") == tier) for tier in ELEVATED}
        return {"all": self.count, "episodic": self.count - sum(counts.values()), **counts}


def catalog(memory: Memory) -> Catalog:
    folder = memory.root / FOLDER
    cached = _load(memory)
    if cached is not None and cached["mtime"] is not None and cached["mtime"] == _mtimes(folder, cached.get("years", [])):
        return _from(cached)
    years = _years(folder)
    mtime = _mtimes(folder, years)
    tree = _tree(memory)
    data = None
    if cached is not None and tree and cached.get("tree") == tree:
        data = cached   # the folder changed but not its commit: a file not committed yet, or one undone
    elif cached is not None and tree and cached.get("tree"):
        data = _updated(memory, cached, tree)
    if data is None:
        data = _rebuilt(memory, tree)
    data.update(mtime=mtime if _settled(memory, mtime) else None, years=years, tree=tree, version=VERSION)
    _save(memory, data)
    return _from(data)


def head(path) -> dict[str, str]:
    """The properties wake needs, from the file's first bytes (no YAML parser)."""
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


def _rebuilt(memory: Memory, tree: str | None) -> dict:
    names = _committed(memory, tree) if tree else _listed(memory)
    candidates = _grepped(memory)
    return {"count": len(names), "elevated": _lifted(memory, names if candidates is None else candidates),
            "newest": _newest(names)}


def _updated(memory: Memory, cached: dict, tree: str) -> dict | None:
    done = git.run(memory.root, "diff-tree", "-r", "-z", "--name-status", cached["tree"], tree, check=False)
    if done.returncode != 0:
        return None
    fields = done.stdout.split("\0")
    elevated, newest, count = dict(cached["elevated"]), set(cached["newest"]), cached["count"]
    changed = []
    for status, name in zip(fields[0::2], fields[1::2]):
        if not _is_memory(name):
            continue
        elevated.pop(name, None)
        if status[:1] == "D":
            count -= 1
            newest.discard(name)
        else:
            count += status[:1] == "A"
            newest.add(name)
            changed.append(name)
    elevated.update(_lifted(memory, changed))
    kept = _newest(newest)
    if len(kept) < min(KEEP, count):
        return None                      # deletions ate into the newest: list the folder again
    return {"count": count, "elevated": elevated, "newest": kept}


def _lifted(memory: Memory, names) -> dict[str, dict]:
    folder = memory.root / FOLDER
    found = {}
    for name in names:
        info = head(folder / name)
        if info.get("tier") in ELEVATED:
            found[name] = info
    return found


def _committed(memory: Memory, tree: str) -> list[str]:
    """The names in the committed tree, so a rebuilt catalog equals an updated one."""
    done = git.run(memory.root, "ls-tree", "-r", "-z", "--name-only", tree, check=False)
    return [n for n in done.stdout.split("\0") if _is_memory(n)] if done.returncode == 0 else _listed(memory)


def _listed(memory: Memory) -> list[str]:
    folder = memory.root / FOLDER
    found = []
    for inner in ("", *(f"{year}/" for year in _years(folder))):
        try:
            found += [inner + n for n in os.listdir(folder / inner) if _is_memory(inner + n)]
        except (FileNotFoundError, NotADirectoryError):
            continue
    return found


def _grepped(memory: Memory) -> list[str] | None:
    """Names of the files whose frontmatter may say they are elevated (git grep is threaded)."""
    done = git.run(memory.root, "grep", "-l", "-E", _LIFTED, "--", f"{FOLDER}/", check=False)
    if done.returncode not in (0, 1):
        return None
    return [line.split("/", 1)[1] for line in done.stdout.splitlines() if _is_memory(line.split("/", 1)[-1])]


def _is_memory(name: str) -> bool:
    return not layout.memory_name(name).startswith(".") and layout.is_memory(f"{FOLDER}/{name}")


def _newest(names) -> list[str]:
    """The KEEP newest, by name (the creation date), whichever folder each is in."""
    return heapq.nlargest(KEEP, names, key=lambda n: (layout.memory_name(n), n))


def _years(folder) -> list[str]:
    """The year folders in memories/ (a few entries, or the whole folder for one not yet moved)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if layout.is_year(e.name) and e.is_dir())
    except OSError:
        return []


def _mtimes(folder, years) -> list[int] | None:
    """The mtime of memories/ and of each year folder: any file added, deleted or rewritten moves one."""
    try:
        return [folder.stat().st_mtime_ns, *((folder / y).stat().st_mtime_ns for y in years)]
    except OSError:
        return None


def _settled(memory: Memory, mtime: list[int] | None) -> bool:
    """Whether the folders last changed before HEAD last moved: their files are then the committed ones."""
    if mtime is None:
        return False
    try:
        moved = (git.git_dir(memory.root) / "logs" / "HEAD").stat().st_mtime_ns
    except OSError:
        return False
    return max(mtime) < moved


def _tree(memory: Memory) -> str | None:
    done = git.run(memory.root, "rev-parse", "-q", "--verify", f"HEAD:{FOLDER}", check=False)
    return done.stdout.strip() or None


def _from(data: dict) -> Catalog:
    return Catalog(data["count"], data["elevated"], data["newest"])


def _load(memory: Memory) -> dict | None:
    try:
        data = json.loads((memory.cache / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("elevated"), dict)
    return data if ok and isinstance(data.get("newest"), list) and isinstance(data.get("count"), int) else None


def _save(memory: Memory, data: dict) -> None:
    try:
        atomic_write(memory.cache / CACHE, json.dumps(data, sort_keys=True))
    except OSError:
        pass   # a read-only memory still wakes; the cache is only a saving
