"""Forks: the agent's parallel selves, each a git worktree of the memory on branch fork/NAME.

A fork lives in the parent's .souveraine/forks/NAME: git-ignored, and a dot-folder, so
neither the parent's commands nor Obsidian read it as notes. It shares the parent's .git,
hence its hooks and laws. The parent keeps the narrative: reference/forks/NAME.md records
the task, the return summary and how the fork ended. A fork ends once — integrated (merged
or cherry-picked back) or closed — and its worktree and branch go with it.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

from souveraine.errors import GitError, Refused, UsageError
from souveraine.forks import divergence
from souveraine.forks.state import PATH as STATE_PATH
from souveraine.store import clock, git, notes, repair
from souveraine.store.atomic import atomic_write
from souveraine.store.lock import locked
from souveraine.store.memory import CACHE_DIR, Memory

FOLDER = f"{CACHE_DIR}/forks"
RECORDS = "reference/forks"
LIVE = ("active", "returned")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_MAX_LISTED = 40


@dataclass(frozen=True)
class Paths:
    name: str
    record: str
    branch: str
    worktree: str  # relative to the parent's root


def paths(name: str) -> Paths:
    if not _NAME.match(str(name)):
        raise UsageError(f"'{name}' is not a fork name; use lowercase letters, digits, '-' or '_' (up to 40)",
                         code="bad_fork_name")
    return Paths(name, f"{RECORDS}/{name}.md", f"fork/{name}", f"{FOLDER}/{name}")


def parent_of(memory: Memory) -> Memory:
    """The memory whose main worktree holds ``memory`` (itself, unless it is a fork)."""
    first = git.run(memory.root, "worktree", "list", "--porcelain").stdout.split("\n", 1)[0]
    main = Path(first.removeprefix("worktree ")).resolve()
    return memory if main == memory.root else Memory(main)


def fork_memory(parent: Memory, name: str) -> Memory:
    return Memory(parent.root / paths(name).worktree)


# -- the life cycle ---------------------------------------------------------------------


def start(memory: Memory, name: str, task: str = "") -> dict:
    """A worktree on a new branch fork/NAME from the parent's last commit, and its record."""
    parent = parent_of(memory)
    if parent is not memory:
        raise Refused(f"this memory is itself a fork; start forks from the parent at {parent.root}",
                      code="fork_in_fork")
    where = paths(name)
    worktree = parent.root / where.worktree
    created = False
    try:
        with parent.change(f"feat(fork): start {where.name}") as change:
            _check_free(parent, where, worktree)
            base = git.head(parent.root)
            change.write_note(where.record, _new_record(where, task.strip(), base))
            git.run(parent.root, "worktree", "add", "-q", "-b", where.branch, str(worktree), base)
            created = True
    except BaseException:
        if created:
            _remove(parent, where)
        raise
    return {"name": where.name, "status": "active", "branch": where.branch, "worktree": str(worktree),
            "base": base, "task": task.strip(), "record": where.record, "commit": change.sha}


def list_forks(memory: Memory) -> list[dict]:
    """Every fork the parent has recorded, with live divergence for those still running."""
    parent = parent_of(memory)
    folder = parent.root / RECORDS
    threshold = parent.config["forks"]["divergence_threshold"]
    return [_describe(parent, notes.read(p), threshold) for p in sorted(folder.glob("*.md"))] if folder.is_dir() else []


def return_fork(memory: Memory, name: str, summary: str) -> dict:
    """Record what the fork brings back: its summary, and its commits and files as findings."""
    if not summary.strip():
        raise UsageError("the return summary is empty; give --summary TEXT or a file", code="empty_summary")
    parent = parent_of(memory)
    where = paths(name)
    with parent.change(f"docs(fork): return of {where.name}") as change:
        note = _live_record(parent, where)
        found = _findings(parent, where)
        note["status"] = "returned"
        note["returned"] = _now()
        note["tip"] = found["tip"]
        note["divergence"] = found["divergence"]["lines"]
        note.body = note.body.rstrip("\n") + "\n" + _return_section(summary.strip(), found)
        change.write_note(where.record, note)
    return {"name": where.name, "status": "returned", "record": where.record, **found, "commit": change.sha}


def integrate(memory: Memory, name: str, picks=()) -> dict:
    """Merge the fork back (or cherry-pick ``picks``) when it has not drifted past the threshold.

    Over the threshold the fork is closed instead, and Refused says why.
    """
    parent = parent_of(memory)
    where = paths(name)
    threshold = parent.config["forks"]["divergence_threshold"]
    with parent.lock():
        note = _live_record(parent, where)
        _require_clean(parent, where)
        commits = _resolve_picks(parent, where, picks) if picks else None
        if commits is None:
            drift = divergence.since_fork_point(parent.root, "HEAD", where.branch)
        else:
            drift = divergence.of_commits(parent.root, commits)
        if drift.lines > threshold:
            reason = f"diverged by {drift.lines} changed lines in system/ and identities/ (threshold {threshold})"
            close(parent, where.name, reason=reason)
            raise Refused(f"fork {where.name} {reason}; it was closed, not integrated — its summary stays in "
                          f"{where.record}", code="fork_diverged")
        marker = parent.cache / repair.INTEGRATING
        brought = parent.git("diff", "--name-only", "--no-renames", "HEAD", where.branch).stdout.split("\n")
        atomic_write(marker, json.dumps({"name": where.name, "head": git.head(parent.root),
                                         "paths": [p for p in brought if p]}) + "\n")
        try:
            result = _bring_back(parent, where, note, commits, drift, threshold)
            _remove(parent, where)
        finally:
            marker.unlink(missing_ok=True)
    return result


def close(memory: Memory, name: str, reason: str = "") -> dict:
    """End the fork without integrating it: worktree and branch removed, its record kept."""
    parent = parent_of(memory)
    where = paths(name)
    sha = None
    with parent.lock():
        note = _record(parent, where)
        if note.get("status") in LIVE:
            found = _findings(parent, where) if _branch_exists(parent, where) else None
            with parent.change(f"chore(fork): close {where.name}") as change:
                note["status"] = "closed"
                note["ended"] = _now()
                note["reason"] = reason or "closed by hand"
                if found:
                    note["tip"] = found["tip"]
                    note["divergence"] = found["divergence"]["lines"]
                note.body = note.body.rstrip("\n") + "\n" + _close_section(where, reason, found)
                change.write_note(where.record, note)
            sha = change.sha
        _remove(parent, where)
    return {"name": where.name, "status": str(note.get("status")), "record": where.record, "commit": sha}


# -- integration --------------------------------------------------------------------------


def _bring_back(parent: Memory, where: Paths, note, commits, drift, threshold: int) -> dict:
    ahead = _fork_commits(parent, where)
    brought = commits if commits is not None else ahead
    how = (f"Picked {len(brought)} of {_plural(len(ahead), 'commit')}" if commits is not None
           else f"Merged {_plural(len(ahead), 'commit')}")
    message = (f"feat(fork): integrate {where.name}\n\n{how} from {where.branch}; divergence {drift.lines} "
               f"lines (threshold {threshold}).")
    with parent.change(message, commit=False) as change:
        try:
            if commits is None:
                _merge(parent, where)
            else:
                for sha in commits:
                    _pick(parent, sha)
            note["status"] = "integrated"
            note["ended"] = _now()
            note["tip"] = _tip(parent, where)
            note["divergence"] = drift.lines
            if commits is not None:
                note["picked"] = [sha[:12] for sha in commits]
            note.body = (note.body.rstrip("\n") + f"\n\n## Integrated · {_now_short()}\n\n{how}; "
                         f"divergence {drift.lines} lines (threshold {threshold}).\n")
            change.write_note(where.record, note)
            parent.git("add", "--", where.record)
            change.sha = _commit(parent, message)
        except BaseException:
            _abort(parent)
            raise
    return {"name": where.name, "status": "integrated", "commit": change.sha, "commits": len(brought),
            "picked": [sha[:12] for sha in commits] if commits is not None else [],
            "divergence": drift.lines, "threshold": threshold, "record": where.record}


def _merge(parent: Memory, where: Paths) -> None:
    done = parent.git("merge", "--no-ff", "--no-commit", "-q", where.branch, check=False)
    _settle(parent, f"fork {where.name}", done)


def _pick(parent: Memory, sha: str) -> None:
    done = parent.git("cherry-pick", "--no-commit", sha, check=False)
    _settle(parent, f"commit {sha[:12]}", done)
    # The next pick must not find this one still "in progress"; the index keeps its result.
    parent.git("cherry-pick", "--quit", check=False)


def _settle(parent: Memory, what: str, done) -> None:
    """Keep the parent's state; merge append-only files by appending; refuse any other conflict."""
    conflicted = [p for p in parent.git("diff", "--name-only", "--diff-filter=U").stdout.splitlines() if p]
    if done.returncode != 0 and not conflicted:
        why = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise Refused(f"git could not bring back {what}: {why[0] if why else 'exit ' + str(done.returncode)}; "
                      "nothing was changed", code="fork_conflict")
    parent.git("checkout", "HEAD", "--", STATE_PATH)
    conflicted = [p for p in conflicted if p != STATE_PATH]
    stuck = [p for p in conflicted if not (parent.append_only(p) and _append_both(parent, p))]
    if stuck:
        raise Refused(f"integrating {what} conflicts in {', '.join(stuck)}; nothing was changed — merge the "
                      "parent into the fork's branch, resolve there, and integrate again", code="fork_conflict")


def _append_both(parent: Memory, relpath: str) -> bool:
    """Both sides appended to an append-only file: keep the parent's text, then the fork's additions."""
    ours = _stage(parent, 2, relpath)
    theirs = _stage(parent, 3, relpath)
    if ours is None or theirs is None:
        return False
    base = _stage(parent, 1, relpath) or b""
    if not (ours.startswith(base) and theirs.startswith(base)):
        return False
    extra = theirs[_common_lines(ours, theirs):]
    if extra and ours and not ours.endswith(b"\n"):
        ours += b"\n"
    atomic_write(parent.path(relpath), ours + extra)
    parent.git("add", "--", relpath)
    return True


def _stage(parent: Memory, number: int, relpath: str) -> bytes | None:
    done = parent.git("show", f":{number}:{relpath}", check=False, text=False)
    return done.stdout if done.returncode == 0 else None


def _common_lines(a: bytes, b: bytes) -> int:
    """The length of the longest run of whole lines both start with."""
    size = 0
    for left, right in zip(a.splitlines(keepends=True), b.splitlines(keepends=True)):
        if left != right:
            break
        size += len(left)
    return size


def _commit(parent: Memory, message: str) -> str:
    author = git.author_env(parent.root, parent.config["git"]["author_name"], parent.config["git"]["author_email"])
    done = parent.git("commit", "-q", "-m", message, check=False, env=author)
    if done.returncode != 0:
        raise git.refusal(done, "git refused the integration commit")
    return git.head(parent.root)


def _abort(parent: Memory) -> None:
    """Put the parent back exactly at its last commit (it was clean before integrating)."""
    for operation in ("merge", "cherry-pick"):
        parent.git(operation, "--abort", check=False)
    parent.git("reset", "-q", "--hard", "HEAD", check=False)


def _resolve_picks(parent: Memory, where: Paths, picks) -> list[str]:
    ours = _fork_commits(parent, where)
    wanted = set()
    for pick in picks:
        done = parent.git("rev-parse", "--verify", "-q", f"{pick}^{{commit}}", check=False)
        sha = done.stdout.strip()
        if done.returncode != 0 or sha not in ours:
            raise UsageError(f"'{pick}' is not one of fork {where.name}'s own commits; see them with "
                             f"'git log --no-merges HEAD..{where.branch}'", code="bad_pick")
        wanted.add(sha)
    return [sha for sha in ours if sha in wanted]


# -- reading a fork -----------------------------------------------------------------------


def _describe(parent: Memory, note, threshold: int) -> dict:
    where = paths(Path(note.path).stem)
    data = {
        "name": where.name,
        "status": str(note.get("status")),
        "task": str(note.get("task") or ""),
        "branch": where.branch,
        "worktree": str(parent.root / where.worktree),
        "started": str(note.get("started") or ""),
        "divergence": note.get("divergence"),
        "threshold": threshold,
    }
    if data["status"] in LIVE and _branch_exists(parent, where):
        data["commits"] = len(_fork_commits(parent, where))
        data["divergence"] = divergence.since_fork_point(parent.root, "HEAD", where.branch).lines
        data["dirty"] = _dirty(parent, where)
    data["over"] = isinstance(data["divergence"], int) and data["divergence"] > threshold
    return data


def _record(parent: Memory, where: Paths):
    if not parent.exists(where.record):
        raise UsageError(f"no fork named {where.name}; 'souveraine fork list' shows them", code="no_fork")
    return notes.read(parent.path(where.record))


def _live_record(parent: Memory, where: Paths):
    note = _record(parent, where)
    if note.get("status") not in LIVE:
        raise Refused(f"fork {where.name} is {note.get('status')} already; its record is {where.record}",
                      code="fork_ended")
    if not _branch_exists(parent, where):
        raise Refused(f"fork {where.name}'s branch {where.branch} is gone; end it with "
                      f"'souveraine fork close {where.name}'", code="fork_missing")
    return note


def _findings(parent: Memory, where: Paths) -> dict:
    commits = _fork_commits(parent, where)
    log = parent.git("log", "--no-merges", "--format=%h %s", f"HEAD..{where.branch}").stdout.splitlines()
    base = parent.git("merge-base", "HEAD", where.branch).stdout.strip()
    changed = parent.git("diff", "--name-status", "--no-renames", base, where.branch).stdout.splitlines()
    return {
        "tip": _tip(parent, where),
        "commits": len(commits),
        "log": log,
        "files": [line.replace("\t", " ") for line in changed],
        "divergence": divergence.between(parent.root, base, where.branch).to_dict(),
    }


def _fork_commits(parent: Memory, where: Paths) -> list[str]:
    """The fork's own commits since the fork point, oldest first (merges left out)."""
    out = parent.git("rev-list", "--reverse", "--no-merges", f"HEAD..{where.branch}").stdout
    return out.split()


def _tip(parent: Memory, where: Paths) -> str:
    return parent.git("rev-parse", where.branch).stdout.strip()


def _branch_exists(parent: Memory, where: Paths) -> bool:
    return parent.git("rev-parse", "--verify", "-q", f"refs/heads/{where.branch}", check=False).returncode == 0


def _dirty(parent: Memory, where: Paths) -> bool:
    worktree = parent.root / where.worktree
    if not worktree.is_dir():
        return False
    return bool(git.run(worktree, "status", "--porcelain").stdout.strip())


def _check_free(parent: Memory, where: Paths, worktree: Path) -> None:
    if parent.exists(where.record):
        status = notes.read(parent.path(where.record)).get("status")
        raise Refused(f"a fork named {where.name} exists already ({status}); choose another name", code="fork_exists")
    if _branch_exists(parent, where) or worktree.exists():
        raise Refused(f"branch {where.branch} or folder {where.worktree} exists already; choose another name",
                      code="fork_exists")


def _require_clean(parent: Memory, where: Paths) -> None:
    if parent.git("status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise Refused(f"the memory at {parent.root} has uncommitted changes; commit them before integrating",
                      code="dirty")
    if _dirty(parent, where):
        raise Refused(f"fork {where.name} has uncommitted changes in {parent.root / where.worktree}; commit them "
                      f"there, or 'souveraine fork close {where.name}' to drop them", code="fork_dirty")


def _remove(parent: Memory, where: Paths) -> None:
    """Remove the fork's worktree and branch; safe to repeat. Waits for a command running in it."""
    worktree = parent.root / where.worktree
    if worktree.is_dir():
        with locked(worktree / CACHE_DIR / "lock", parent.config["git"]["lock_timeout"], what=f"fork {where.name}"):
            parent.git("worktree", "remove", "--force", "--force", str(worktree), check=False)
    parent.git("worktree", "prune")
    if worktree.exists():
        raise GitError(f"could not remove {worktree}; remove the folder, then run 'souveraine fork close {where.name}'")
    if _branch_exists(parent, where):
        parent.git("branch", "-q", "-D", where.branch)


# -- the record ----------------------------------------------------------------------------


def _new_record(where: Paths, task: str, base: str):
    first = task.split("\n", 1)[0][:100]
    return notes.new({
        "type": "fork",
        "name": where.name,
        "status": "active",
        "branch": where.branch,
        "task": first,
        "worktree": where.worktree,
        "base": base,
        "started": _now(),
        "returned": "",
        "ended": "",
        "tip": "",
        "divergence": 0,
        "reason": "",
        "description": f"Fork {where.name}: {first}" if first else f"Fork {where.name}, a parallel self.",
        "tags": ["fork"],
    }, f"# Fork {where.name}\n\n{task or 'No task was given.'}\n")


def _return_section(summary: str, found: dict) -> str:
    lines = [f"\n## Return · {_now_short()}\n\n{summary}\n\n### Findings\n\n",
             f"{_plural(found['commits'], 'commit')}; divergence {found['divergence']['lines']} lines in system/ and identities/.\n"]
    lines += _listing("Commits", found["log"])
    lines += _listing("Files changed", found["files"])
    return "".join(lines)


def _close_section(where: Paths, reason: str, found: dict | None) -> str:
    text = f"\n## Closed · {_now_short()}\n\n{reason or 'Closed by hand'}; not integrated.\n"
    if found:
        text += (f"\nThe branch's last commit was `{found['tip'][:12]}`; until git collects it, "
                 f"`git branch {where.branch} {found['tip'][:12]}` brings it back.\n")
        text += "".join(_listing("Commits left behind", found["log"]))
    return text


def _listing(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    shown = [f"- `{item}`\n" for item in items[:_MAX_LISTED]]
    if len(items) > _MAX_LISTED:
        shown.append(f"- … and {len(items) - _MAX_LISTED} more\n")
    return [f"\n{title}:\n\n", *shown]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _now() -> str:
    return clock.now().replace(microsecond=0).isoformat()


def _now_short() -> str:
    return f"{clock.now():%Y-%m-%d %H:%M}"
