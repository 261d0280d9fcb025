"""The one path to git: a sealed environment, one commit function.

Commands shell out to the git binary instead of importing GitPython: its import alone
costs about 75 ms, half of persist's budget, and the history walks and worktrees it was
meant for are one git call each here too. Inside hooks git's variables are meant, so
``sealed=False`` keeps them.
"""

import os
import time
from pathlib import Path

from souveraine.errors import GitError, Refused

# Variables that would point git at another repository or index than the memory's.
_REDIRECTS = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_COMMON_DIR",
    "GIT_PREFIX", "GIT_QUARANTINE_PATH", "GIT_CEILING_DIRECTORIES",
)

_author_checked: dict[str, bool] = {}

# The laws' in-process judge and after-commit work, registered by souveraine.laws.inprocess
# (store cannot import the laws). With them, the tool's own commits are judged by the very
# same functions the hooks call, without starting three interpreters per commit; the hooks
# see SOUVERAINE_JUDGED=1 and step aside. Commits made any other way run the hooks.
_judge = None
_after = None


def register(judge, after) -> None:
    global _judge, _after
    _judge, _after = judge, after


def sealed_env(root: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECTS}
    env["GIT_CEILING_DIRECTORIES"] = str(Path(root).resolve().parent)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_EDITOR", "true")
    if extra:
        env.update(extra)
    return env


def run(root: Path, *args: str, input: str | bytes | None = None, check: bool = True,
        sealed: bool = True, env: dict[str, str] | None = None, text: bool = True) -> "subprocess.CompletedProcess":
    """Run ``git -C root args…``; raise GitError with git's own words when it fails."""
    import subprocess   # here, not at the top: recall and wake run no git at all

    environment = sealed_env(root, env) if sealed else {**os.environ, **(env or {})}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], input=input, capture_output=True,
            text=text, env=environment,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git and try again") from None
    if check and done.returncode != 0:
        err = done.stderr if text else done.stderr.decode(errors="replace")
        if "index.lock" in err:
            lock = git_dir(root) / "index.lock"
            raise GitError(f"git {args[0]} failed: git's index is locked ({lock}); if no git is running, remove "
                           "that file ('souveraine doctor --fix' does), else try again when it finishes")
        raise GitError(f"git {args[0]} failed: {_last_line(err) or 'exit ' + str(done.returncode)}")
    return done


def head(root: Path) -> str | None:
    found = _loose_head(root)
    if found:
        return found
    done = run(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return done.stdout.strip() or None


def author_env(root: Path, name: str, email: str) -> dict[str, str]:
    """An author for git when it has none of its own (cron and CI have none)."""
    key = str(root)
    if key not in _author_checked:
        _author_checked[key] = run(root, "var", "GIT_AUTHOR_IDENT", check=False).returncode == 0
    if _author_checked[key]:
        return {}
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}


def commit(root: Path, paths: list[str], message: str, *, author: dict[str, str] | None = None,
           verify: bool = True) -> str | None:
    """Stage exactly ``paths`` and commit them alone; None when nothing changed.

    The message is checked against the conventions first; the hooks then keep the laws.
    A refusal by a hook raises Refused with the hook's words.
    """
    from souveraine.store import conventions    # six patterns compiled: a read of the memory needs none

    why = conventions.problem(message)
    if why:
        raise Refused(f"commit refused: {why}")
    if not paths:
        return None
    env = dict(author or {})
    _stage(root, paths, env)
    try:
        return _commit_staged(root, paths, message, env, verify)
    finally:
        _forget_staged()


def _commit_staged(root: Path, paths: list[str], message: str, env: dict[str, str], verify: bool) -> str | None:
    staged = _staged(root, env)
    if staged is None:  # before the first commit: against the empty tree, 0 means nothing to commit
        if run(root, "diff", "--cached", "--quiet", "--", *paths, check=False, env=env).returncode == 0:
            return None
        alone = False
    else:
        ours = [name for name in staged if _within(name, paths)]
        if not ours:
            return None
        alone = len(ours) == len(staged)
    judged = verify and _judge is not None
    raw = _staged_raw
    if judged:
        problems = _judge(root, message)
        _forget_staged()   # the index is the judge's no longer once the hooks' work begins
        if problems:
            raise Refused("; ".join(problems))
        env["SOUVERAINE_JUDGED"] = "1"
    found = run(root, "rev-parse", "--git-path", "hooks", "HEAD", env=env).stdout.split("\n") if judged and alone else []
    if found and _hooks_step_aside(Path(root, found[0])):
        judged_raw = raw[2] if raw and raw[1] == found[1] and raw[0] == str(Path(root).resolve()) else None
        sha = _commit_index(root, message, found[1], env, judged_raw)
    else:
        args = ["commit", "-q", "-m", message, *([] if verify else ["--no-verify"])]
        done = run(root, *args, "--", *paths, check=False, env=env)
        if done.returncode != 0:
            raise refusal(done, "git refused the commit")
        sha = head(root)
    if judged and _after is not None:
        _after(root)
    return sha


def _stage(root: Path, paths: list[str], env: dict[str, str]) -> None:
    """Stage ``paths`` (files written or deleted): `update-index` reads and writes the index
    and nothing else, where `add` also lists and stats around the paths (half the cost at ten
    years of memory). A folder among them goes through `add -A`."""
    if any(Path(root, p).is_dir() for p in paths):
        run(root, "add", "-A", "--", *paths, env=env)
    else:
        run(root, "update-index", "--add", "--remove", "--", *paths, env=env)


# The staged index's raw difference from HEAD, read once per commit: `_staged` wants its
# names, the in-process judge (laws/snapshot.py) the whole of it. Reading git's index costs
# milliseconds a process at ten years, so it is read once.
_staged_raw: tuple[str, str, bytes] | None = None


def _staged(root: Path, env: dict[str, str]) -> list[str] | None:
    """Every path staged against HEAD; None before the first commit."""
    global _staged_raw
    head_sha = _loose_head(Path(root)) or "HEAD"
    done = run(root, "diff-index", "--cached", "--raw", "-z", "--no-renames", head_sha, "--",
               check=False, env=env, text=False)
    if done.returncode != 0:
        return None
    if head_sha != "HEAD" and not env.get("GIT_INDEX_FILE"):
        _staged_raw = (str(Path(root).resolve()), head_sha, done.stdout)
    return [name for name in done.stdout.decode("utf-8", errors="surrogateescape").split("\0")[1::2] if name]


def staged_raw(root: Path, tree: str) -> bytes | None:
    """The raw difference ``_staged`` read for this commit, when it is of ``root``'s index against ``tree``."""
    if _staged_raw and _staged_raw[1] == tree and _staged_raw[0] == str(Path(root).resolve()):
        return _staged_raw[2]
    return None


def _forget_staged() -> None:
    global _staged_raw
    _staged_raw = None


def _within(name: str, paths: list[str]) -> bool:
    return any(name == p or name.startswith(p.rstrip("/") + "/") for p in paths)


# The hooks git runs for a commit. Souveraine's own step aside for a commit judged in-process.
_COMMIT_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")


def _hooks_step_aside(hooks: Path) -> bool:
    """Whether every commit hook here is absent or one that steps aside for SOUVERAINE_JUDGED."""
    for name in _COMMIT_HOOKS:
        try:
            if "SOUVERAINE_JUDGED" not in (hooks / name).read_text(encoding="utf-8", errors="replace"):
                return False
        except FileNotFoundError:
            continue
        except OSError:   # unreadable, or not a folder (hooksPath=/dev/null): let git run the commit
            return False
    return True


def _commit_index(root: Path, message: str, parent: str, env: dict[str, str], raw: bytes | None = None) -> str:
    """Commit the index as it stands, by plumbing, when it holds only this commit's paths
    and its hooks would step aside.

    What `git commit` does after the laws were judged in-process, without refreshing every
    entry of the index first: a tenth of a second at ten years of memory. The branch moves
    only from the parent the commit was made on. ``raw``: the staged difference the laws
    judged (`diff-index --raw -z` against ``parent``), from which the tree is made by
    ``trees.of_change``; without it, or where that cannot, by `write-tree`.
    """
    tree = None
    if raw is not None:
        from souveraine.store import trees

        tree = trees.of_change(root, parent, raw, env)
    tree = tree or run(root, "write-tree", env=env).stdout.strip()
    text = _cleaned(message)
    sha = run(root, "commit-tree", tree, "-p", parent, "-F", "-", input=text, env=env).stdout.strip()
    run(root, "update-ref", "-m", f"commit: {text.splitlines()[0]}", "HEAD", sha, parent, env=env)
    return sha


def _cleaned(message: str) -> str:
    """The message as `git commit -m` keeps it: lines right-stripped, runs of blank lines made one,
    none at either end."""
    lines, blank = [], False
    for line in message.replace("\r\n", "\n").split("\n"):
        line = line.rstrip()
        if line or (lines and not blank):
            lines.append(line)
        blank = not line
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def _loose_head(root: Path) -> str | None:
    """HEAD read from .git's files, without a process: a commit writes its branch as a loose
    ref, which wins over a packed one. None when it is not that simple (a worktree, a
    packed ref, another ref store)."""
    git_dir = Path(root) / ".git"
    try:
        ref = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        sha = (git_dir / ref[5:]).read_text(encoding="ascii").strip() if ref.startswith("ref: ") else ref
    except (OSError, UnicodeDecodeError):
        return None
    return sha if len(sha) in (40, 64) and all(c in "0123456789abcdef" for c in sha) else None


def git_dir(root: Path) -> Path:
    """The repository's git folder (a worktree's own, for a fork), read without a process."""
    dot = Path(root) / ".git"
    if dot.is_file():
        try:
            line = dot.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return dot
        if line.startswith("gitdir: "):
            found = Path(line[8:])
            return found if found.is_absolute() else (Path(root) / found).resolve()
    return dot


# What git leaves in its folder while an operation waits for a person to finish it.
_OPERATIONS = (("MERGE_HEAD", "merge"), ("rebase-merge", "rebase"), ("rebase-apply", "rebase"),
               ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert"))
_FINISH = {"merge": "finish it with 'git commit' or give it up with 'git merge --abort'",
           "rebase": "finish it with 'git rebase --continue' or give it up with 'git rebase --abort'",
           "cherry-pick": "finish it with 'git cherry-pick --continue' or give it up with 'git cherry-pick --abort'",
           "revert": "finish it with 'git revert --continue' or give it up with 'git revert --abort'"}


def in_progress(root: Path) -> str | None:
    """"merge", "rebase", "cherry-pick" or "revert" while one is under way in ``root``; else None.

    Nothing of ours commits then: a commit would carry the conflict markers, or end the
    merge with one parent. Turns wait in the spool until ``spool.drain``.
    """
    where = git_dir(root)
    for name, operation in _OPERATIONS:
        if (where / name).exists():
            return operation
    return None


def how_to_finish(operation: str) -> str:
    return _FINISH.get(operation, "finish or abort it with git")


def index_lock(root: Path, settle: bool = True) -> tuple[Path, int | None] | None:
    """git's ``index.lock`` when there is one, and the pid of a live process holding it open
    (None: no process does, a killed git left it).

    A lock younger than ``_FRESH`` that no process holds may be a git just starting: with
    ``settle``, wait until it is that old and look again, so that what a kill left a moment
    ago is still told apart from a live git (-1 without ``settle``)."""
    lock = git_dir(root) / "index.lock"
    try:
        before = lock.stat()
    except OSError:
        return None
    holder = _holder(lock)
    age = time.time() - before.st_mtime
    if holder is None and 0 <= age < _FRESH:
        if settle:
            time.sleep(_FRESH - age)
            return index_lock(root, settle=False)
        holder = -1    # just made: its git may not have opened it yet as we looked
    return lock, holder


_FRESH = 2.0   # seconds an index.lock is presumed live, whoever holds it


def _holder(path: Path, root: Path | None = None) -> int | None:
    """A live process with ``path`` open, or a git process working in its repository (git
    closes the lock's descriptor while a commit's hooks run); -1 where /proc cannot tell.
    ``root``: the repository's work tree, for a lock deeper in ``.git`` than its top."""
    if not Path("/proc/self/fd").is_dir():
        return -1
    target = str(path)
    worktree = str(root) if root is not None else (str(path.parent.parent) if path.parent.name == ".git" else None)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == os.getpid():
            continue
        try:
            if worktree and _is_git_in(pid, worktree):
                return pid
            for fd in os.scandir(f"/proc/{pid}/fd"):
                if _link(fd.path) == target:
                    return pid
        except OSError:
            continue
    return None


def _is_git_in(pid: int, worktree: str) -> bool:
    with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as handle:
        if handle.read().strip() != "git":
            return False
    cwd = _link(f"/proc/{pid}/cwd")
    return cwd == worktree or cwd.startswith(worktree + os.sep)


def _link(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def clear_stale_index_lock(root: Path) -> Path | None:
    """Remove an ``index.lock`` that no live process holds; returns it when it was removed."""
    found = index_lock(root)
    if found is None or found[1] is not None:
        return None
    found[0].unlink(missing_ok=True)
    return found[0]


def refusal(done: "subprocess.CompletedProcess", fallback: str) -> Refused:
    """A failed commit as one Refused line: the hooks' words, joined."""
    # The hooks sign their lines "souveraine: " for people at git; the CLI adds its own.
    lines = [l.strip().removeprefix("souveraine: ") for l in (done.stderr or done.stdout).splitlines() if l.strip()]
    return Refused("; ".join(lines) if lines else fallback)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""
