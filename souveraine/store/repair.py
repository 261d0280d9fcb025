"""What a crash leaves behind, found and mended.

Every writing command takes the memory's lock, and ``quick`` runs as it does: with the
lock held, no command of ours is half-way through anything, so what looks half-done was
cut short. It costs a few ``stat`` calls when there is nothing to mend. It mends:

- an ``index.lock`` no live process holds (a killed git left it), and the ref locks
  (``HEAD.lock``, ``refs/heads/*.lock``, ``packed-refs.lock``, ``packed-refs.new``);
- a change a dead process began (``store.intent``): each file it touched is put back as
  it was, unless it is what HEAD holds, and unstaged; its temporary files go; the spool
  files it journaled leave the spool if their turns are in HEAD (its commit landed);
- defrag cut short: its worktree folders and ``defrag/*`` branches, and a fast-forward
  interrupted half-way (its files put back as they were at its base);
- a fork integration cut short (the merge or cherry-pick aborted), and the worktrees and
  branches of forks whose start never committed or whose end was interrupted;
- temporary files (``.NAME.<pid>-<hex>.tmp``) whose writer is gone, in ``.souveraine/``.

``find(memory, deep=True)`` lists the same without changing anything, and more that only
a person can settle (staged paths, a merge in progress, exchanges waiting in the spool):
``doctor`` shows them, ``doctor --fix`` mends what can be mended.
"""

import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from souveraine.language import patterns
from souveraine.store import git, intent

DEFRAG = "defrag"                    # under .souveraine/: defrag's worktrees
DEFRAG_MERGE = "defrag.json"         # under .souveraine/: a fast-forward under way {base, tip, branch}
FORKS = "forks"                      # under .souveraine/: the forks' worktrees
INTEGRATING = "integrating.json"     # under .souveraine/: a fork integration under way {name, head}
_TEMP = patterns.compile(r"^\..+\.(?:(\d+)-[0-9a-f]{8}|[0-9a-f]{12})\.tmp$")
_OLD_TEMP_SECONDS = 10               # a temporary file of the old name, with no pid, this old is stale


@dataclass
class Leftover:
    kind: str
    path: str
    why: str
    fix: str
    mend: Callable[[], None] | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "why": self.why, "fix": self.fix, "mendable": self.mend is not None}


def quick(memory) -> list[Leftover]:
    """Mend what a crash left that is cheap to find; returns what was mended."""
    return _mend(memory, (leftover for finder in (*_CHEAP, _loose_defrag_branches) for leftover in finder(memory)))


def find(memory, deep: bool = True) -> list[Leftover]:
    """Everything a crash left (and, ``deep``, what waits on a person), changing nothing."""
    found = [leftover for finder in _CHEAP for leftover in finder(memory)]
    if deep:
        found += _defrag_branches(memory) + _tree_temps(memory) + _operation(memory) + _staged(memory)
    return found


def mend_all(memory) -> list[Leftover]:
    """What ``doctor --fix`` mends: everything ``find`` can mend."""
    return _mend(memory, find(memory, deep=True))


def _mend(memory, leftovers) -> list[Leftover]:
    """Mend each leftover as it comes (a generator finds the next only after the last is mended)."""
    mended = []
    for leftover in leftovers:
        if leftover.mend is not None:
            leftover.mend()
            mended.append(leftover)
    if mended:
        _log(memory, mended)
    return mended


# -- git's own locks and operations ---------------------------------------------------------

def _index_lock(memory) -> list[Leftover]:
    found = git.index_lock(memory.root)
    if found is None:
        return []
    lock, holder = found
    rel = _rel(memory, lock)
    if holder is not None:
        who = f"pid {holder}" if holder > 0 else "a git that just started"
        return [Leftover("index-lock", rel, f"git's index is locked by {who}",
                         "wait for that git to finish; nothing to mend")]
    return [Leftover("index-lock", rel, "git's index lock, left by a git that was killed (no process holds it)",
                     f"remove {lock} (doctor --fix, or any writing command, does)",
                     lambda: lock.unlink(missing_ok=True))]


def _ref_locks(memory) -> list[Leftover]:
    """``HEAD.lock``, ``refs/heads/*.lock``, ``packed-refs.lock`` and its ``packed-refs.new`` a
    killed git left (the last makes every later branch deletion fail): no process holds
    them and they are older than a git takes to start."""
    where = git.git_dir(memory.root)
    heads = where / "refs" / "heads"
    candidates = [where / "HEAD.lock", where / "packed-refs.lock", where / "packed-refs.new"]
    candidates += list(heads.rglob("*.lock")) if heads.is_dir() else []
    found = []
    for lock in candidates:
        if not _stale_ref_lock(memory, lock):
            continue
        found.append(Leftover("ref-lock", _rel(memory, lock), "a ref's lock, left by a git that was killed",
                              f"remove {lock} (doctor --fix, or any writing command, does)",
                              lambda lock=lock: lock.unlink(missing_ok=True)))
    return found


def _stale_ref_lock(memory, lock: Path) -> bool:
    """No live process holds ``lock``, nor any git working in the memory. One younger than
    a git takes to start is looked at again once it is that old, as git's index lock is:
    the next command comes a moment after a kill, and leaving the lock would fail its commit."""
    try:
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return False
    if git._holder(lock, memory.root) is not None:
        return False
    if 0 <= age < git._FRESH:
        time.sleep(git._FRESH - age)
        return lock.exists() and git._holder(lock, memory.root) is None
    return True


def _operation(memory) -> list[Leftover]:
    operation = git.in_progress(memory.root)
    if not operation:
        return []
    return [Leftover("operation", ".git", f"a {operation} is in progress: nothing of ours commits until it ends "
                     "(persist keeps turns in the spool)", git.how_to_finish(operation))]


def _staged(memory) -> list[Leftover]:
    done = git.run(memory.root, "diff", "--cached", "--name-only", "-z", check=False)
    if done.returncode != 0 or git.in_progress(memory.root):
        return []
    return [Leftover("staged", name, "staged but not committed: the next commit of this path will carry it",
                     f"commit it ('git commit -- {name}') or unstage it ('git restore --staged {name}')")
            for name in done.stdout.split("\0") if name]


# -- changes cut short ----------------------------------------------------------------------

def _changes(memory) -> list[Leftover]:
    found = []
    for left in intent.left(memory):
        paths = [p for p, _ in left.paths]
        what = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "") or "nothing yet"
        found.append(Leftover("change", _rel(memory, left.where),
                              f"a change by pid {left.pid} was cut short while writing {what}",
                              "put its files back as they were (doctor --fix, or any writing command, does)",
                              lambda left=left: _undo(memory, left)))
    return found


def _undo(memory, left: intent.Left) -> None:
    """Put back each file the dead change touched, unless HEAD holds it as it is now."""
    paths = [p for p, _ in left.paths if _inside(memory, p)]
    differ = _differing(memory, paths)
    for relpath, kept in left.paths:
        if relpath not in differ:
            continue
        full = memory.root / relpath
        if kept is not None and kept.exists():
            full.parent.mkdir(parents=True, exist_ok=True)
            os.replace(kept, full)
        else:
            full.unlink(missing_ok=True)
    if paths and git.head(memory.root):
        git.run(memory.root, "reset", "-q", "--", *paths, check=False)
    for relpath in paths:
        _remove_temps(memory.root / relpath, dead_only=True)
    _settle_spool(memory, left)
    shutil.rmtree(left.where, ignore_errors=True)


def _settle_spool(memory, left: intent.Left) -> None:
    """The spool files whose turns the day files hold, now that they are as HEAD has them
    or as they were before: their commit landed, so they leave the spool (a replay would
    journal them twice). Those not held stay, and the next drain journals them."""
    from souveraine.store import journal, spool

    ids: dict[str, set[str]] = {}
    done = []
    for name, turns in left.spooled:
        if not turns or "/" in name or name.startswith("."):
            continue
        for relpath, _ in turns:
            if relpath not in ids and _inside(memory, relpath):
                try:
                    ids[relpath] = journal.block_ids((memory.root / relpath).read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError):
                    ids[relpath] = set()
        if all(block in ids.get(relpath, ()) for relpath, block in turns):
            done.append(spool.Entry(name, spool.folder(memory) / name, {}))
    spool.remove(memory, done)


def _differing(memory, paths: list[str]) -> set[str]:
    """The paths whose file is not what HEAD holds: changed, deleted, staged or untracked."""
    if not paths:
        return set()
    if not git.head(memory.root):
        return set(paths)
    changed = git.run(memory.root, "diff", "--name-only", "-z", "--no-renames", "HEAD", "--", *paths, check=False)
    others = git.run(memory.root, "ls-files", "--others", "-z", "--", *paths, check=False)
    return set((changed.stdout + "\0" + others.stdout).split("\0")) - {""}


def _inside(memory, relpath: str) -> bool:
    try:
        memory.path(relpath)
        return True
    except Exception:
        return False


# -- defrag and forks cut short --------------------------------------------------------------

def _defrag_merge(memory) -> list[Leftover]:
    marker = memory.cache / DEFRAG_MERGE
    data = _json(marker)
    if data is None:
        return []
    return [Leftover("defrag", _rel(memory, marker), "a defrag was cut short while bringing its commit back",
                     "put the files it had begun to change back as they were at its base (doctor --fix does)",
                     lambda: _undo_defrag_merge(memory, marker, data))]


def _undo_defrag_merge(memory, marker: Path, data: dict) -> None:
    base, tip = str(data.get("base") or ""), str(data.get("tip") or "")
    if base and tip and git.head(memory.root) == base:
        changed = git.run(memory.root, "diff", "--name-only", "-z", "--no-renames", base, tip, check=False).stdout
        paths = [p for p in changed.split("\0") if p]
        at_base = set(git.run(memory.root, "ls-tree", "-r", "-z", "--name-only", base, "--", *paths,
                              check=False).stdout.split("\0")) if paths else set()
        git.clear_stale_index_lock(memory.root)
        kept = [p for p in paths if p in at_base]
        if kept:
            git.run(memory.root, "checkout", base, "--", *kept, check=False)
        for relpath in paths:
            if relpath not in at_base:
                (memory.root / relpath).unlink(missing_ok=True)
        if paths:
            git.run(memory.root, "reset", "-q", "--", *paths, check=False)
    marker.unlink(missing_ok=True)


def _defrag_worktrees(memory) -> list[Leftover]:
    base = memory.cache / DEFRAG
    try:
        names = sorted(n for n in os.listdir(base) if not n.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [Leftover("worktree", _rel(memory, base / name), "a defrag worktree its run left behind when it was killed",
                     "remove it and its branch (doctor --fix, or any writing command, does)",
                     lambda name=name: _remove_worktree(memory, base / name, f"defrag/{name}"))
            for name in names]


def _defrag_branches(memory) -> list[Leftover]:
    done = git.run(memory.root, "for-each-ref", "--format=%(refname:short)", "refs/heads/defrag/", check=False)
    return [Leftover("branch", branch, "a defrag branch its run left behind when it was killed",
                     f"delete it ('git branch -D {branch}'; doctor --fix does)",
                     lambda branch=branch: git.run(memory.root, "branch", "-q", "-D", branch, check=False))
            for branch in done.stdout.split() if not (memory.cache / DEFRAG / branch[7:]).exists()]


def _loose_defrag_branches(memory) -> list[Leftover]:
    """A defrag killed after removing its worktree leaves only its branch: a loose ref, so a
    listing of refs/heads/defrag/ (no git process) says whether git need be asked."""
    try:
        if not os.listdir(git.git_dir(memory.root) / "refs" / "heads" / "defrag"):
            return []
    except (FileNotFoundError, NotADirectoryError):
        return []
    return _defrag_branches(memory)


def _forks(memory) -> list[Leftover]:
    """Fork worktrees whose record is missing (the start never committed) or ended."""
    base = memory.cache / FORKS
    try:
        names = sorted(n for n in os.listdir(base) if not n.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for name in names:
        status = _fork_status(memory, name)
        if status in ("active", "returned"):
            continue
        why = "its start was cut short" if status is None else f"the fork is {status} but its removal was cut short"
        found.append(Leftover("worktree", _rel(memory, base / name), f"fork {name}'s worktree: {why}",
                              "remove it and its branch (doctor --fix, or any writing command, does)",
                              lambda name=name: _remove_worktree(memory, base / name, f"fork/{name}")))
    return found


def _fork_status(memory, name: str) -> str | None:
    record = memory.root / "reference" / "forks" / f"{name}.md"
    try:
        head = record.read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return None
    match = re.search(r"^status:\s*['\"]?([a-z]+)", head, re.MULTILINE)
    return match[1] if match else "unknown"


def _integration(memory) -> list[Leftover]:
    marker = memory.cache / INTEGRATING
    data = _json(marker)
    if data is None:
        return []
    return [Leftover("integration", _rel(memory, marker),
                     f"the integration of fork {data.get('name')} was cut short",
                     "abort its merge and put the memory back at its last commit (doctor --fix does)",
                     lambda: _undo_integration(memory, marker, data))]


def _undo_integration(memory, marker: Path, data: dict) -> None:
    if git.head(memory.root) == data.get("head"):
        git.clear_stale_index_lock(memory.root)
        for operation in ("merge", "cherry-pick"):
            git.run(memory.root, operation, "--abort", check=False)
        paths = [str(p) for p in data.get("paths") or []]
        git.run(memory.root, "reset", "-q", "--hard", "HEAD", check=False)
        for relpath in paths:   # files the merge added, which a hard reset leaves untracked
            if _inside(memory, relpath) and not git.run(memory.root, "ls-files", "--", relpath).stdout:
                (memory.root / relpath).unlink(missing_ok=True)
    else:   # its commit landed, but a kill inside 'git commit' can leave git's note that the merge is under way
        git.clear_stale_index_lock(memory.root)
        merged = git.git_dir(memory.root) / "MERGE_HEAD"
        if merged.exists() and git.run(memory.root, "merge-base", "--is-ancestor", "MERGE_HEAD", "HEAD",
                                       check=False).returncode == 0:
            git.run(memory.root, "merge", "--quit", check=False)
    marker.unlink(missing_ok=True)


def _worktree_admin(memory) -> list[Leftover]:
    """git's records of worktrees whose folder is gone (a killed 'worktree add' or remove)."""
    admin = git.git_dir(memory.root) / "worktrees"
    try:
        names = sorted(os.listdir(admin))
    except (FileNotFoundError, NotADirectoryError):
        return []
    stale = []
    for name in names:
        try:
            target = Path((admin / name / "gitdir").read_text(encoding="utf-8").strip())
        except OSError:
            stale.append(name)
            continue
        if not target.exists() or not (admin / name / "HEAD").is_file():
            stale.append(name)
    if not stale:
        return []
    return [Leftover("worktree", _rel(memory, admin / name), "git's record of a worktree whose folder is gone",
                     "prune it ('git worktree prune'; doctor --fix does)",
                     lambda name=name: _prune(memory, admin / name)) for name in stale]


def _prune(memory, admin: Path) -> None:
    git.run(memory.root, "worktree", "prune", check=False)
    if admin.exists():     # a record too broken for prune (no gitdir, no HEAD)
        shutil.rmtree(admin, ignore_errors=True)


def _remove_worktree(memory, folder: Path, branch: str) -> None:
    git.run(memory.root, "worktree", "remove", "--force", "--force", str(folder), check=False)
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
    git.run(memory.root, "worktree", "prune", check=False)
    if git.run(memory.root, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False).returncode == 0:
        git.run(memory.root, "branch", "-q", "-D", branch, check=False)


# -- temporary files -----------------------------------------------------------------------

def _cache_temps(memory) -> list[Leftover]:
    found = []
    for folder in (memory.cache, memory.cache / "spool"):
        found += _temps_in(memory, folder)
    return found


def _tree_temps(memory) -> list[Leftover]:
    found = []
    for folder, dirs, _ in os.walk(memory.root):
        dirs[:] = [d for d in dirs if d not in (".git", ".souveraine")]
        if Path(folder) != memory.root:
            found += _temps_in(memory, Path(folder))
    found += _temps_in(memory, memory.root)
    return found


def _temps_in(memory, folder: Path) -> list[Leftover]:
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for name in names:
        path = folder / name
        if _stale_temp(path):
            found.append(Leftover("temp", _rel(memory, path), "a temporary file whose writer was killed",
                                  "remove it (doctor --fix, or any writing command, does)",
                                  lambda path=path: path.unlink(missing_ok=True)))
    return found


def _stale_temp(path: Path) -> bool:
    match = _TEMP.match(path.name)
    if not match:
        return False
    if match[1]:
        return not intent.alive(int(match[1]))
    try:
        return time.time() - path.stat().st_mtime > _OLD_TEMP_SECONDS
    except OSError:
        return False


def _remove_temps(target: Path, dead_only: bool) -> None:
    """The temporary files ``atomic_write`` left beside ``target``."""
    try:
        names = os.listdir(target.parent)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in names:
        if name.startswith(f".{target.name}.") and (not dead_only or _stale_temp(target.parent / name)):
            (target.parent / name).unlink(missing_ok=True)


# -- small things ----------------------------------------------------------------------------

def _json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _rel(memory, path: Path) -> str:
    try:
        return Path(path).relative_to(memory.root).as_posix()
    except ValueError:
        return str(path)


def _log(memory, mended: list[Leftover]) -> None:
    """A line per repair in .souveraine/repairs.log, for doctor and for people."""
    try:
        memory.cache.mkdir(parents=True, exist_ok=True)
        with open(memory.cache / "repairs.log", "a", encoding="utf-8") as log:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            for leftover in mended:
                log.write(f"{stamp} {leftover.kind} {leftover.path}: {leftover.why}\n")
    except OSError:
        pass


# What every writing command looks for: no walk of the tree, no question a person must answer.
_CHEAP = (_index_lock, _ref_locks, _defrag_merge, _integration, _changes, _defrag_worktrees, _forks,
          _worktree_admin, _cache_temps)
