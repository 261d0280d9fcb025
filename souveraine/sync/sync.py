"""`sync`: fetch, merge with the driver, judge the merge by the laws, push; again if the remote moved.

The remote is any git remote (a bare repository over ssh or on a disk, a forge). A turn
is never at risk: fetching and pushing happen outside the memory's lock, the merge and
its commit inside it; persist meanwhile keeps turns in its spool, and sync commits them
after the merge (``store.spool.drain``). What comes in is judged before it is kept: the
other side's commits by the laws (as the remote's guard would), the merge by the laws
on merges. A refusal puts everything back as it was.

Append-only files merge by themselves (``sync.driver``). Anything else edited on both
sides (the same person note) stops the sync with the merge under way and the paths
listed: resolve them and ``sync --continue``, or ``sync --abort`` to put the memory back.
docs/SYNC.md is the user's guide.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from souveraine.errors import GitError, Refused, UsageError
from souveraine.store import git, spool
from souveraine.store.memory import Memory

ATTEMPTS = 5          # fetch-merge-push rounds before giving up on a remote that keeps moving
MARK = "souveraine-sync"  # in the git dir while a sync stops on a conflict: "<remote> <branch>"
# git's words when the remote cannot be reached at all (as opposed to refusing us).
_UNREACHABLE = re.compile(
    r"Could not resolve host|Connection refused|Connection timed out|Network is unreachable|No route to host|"
    r"Operation timed out|Temporary failure in name resolution|Could not read from remote repository|"
    r"unable to access|does not appear to be a git repository|Connection reset|Host is down|timed out",
    re.IGNORECASE)
_REJECTED = re.compile(r"\[rejected\]|\(fetch first\)|non-fast-forward|failed to update ref|cannot lock ref", re.IGNORECASE)
_DECLINED = re.compile(r"pre-receive hook declined|\[remote rejected\]", re.IGNORECASE)


@dataclass
class SyncResult:
    remote: str
    branch: str
    outcome: str = "up to date"   # up to date | pushed | merged | fast-forwarded | offline | conflict | refused | aborted
    received: int = 0             # commits brought in from the remote
    sent: int = 0                 # commits the remote did not have, now pushed
    merge: str | None = None      # the merge commit, when one was made
    conflicts: list[str] = field(default_factory=list)
    breaches: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    drained: int = 0              # turns the spool held, committed after the merge
    stopped: bool = False         # a conflict left the merge under way for a person
    attempts: int = 0
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome not in ("conflict", "refused")

    def to_dict(self) -> dict:
        return {**self.__dict__, "ok": self.ok}

    def line(self) -> str:
        """One line for people."""
        where = f"{self.remote}/{self.branch}"
        if self.outcome == "offline":
            return f"sync: offline, {where} cannot be reached ({self.reason}); nothing is lost, {self.sent} commit(s) wait to be pushed"
        if self.outcome == "conflict" and not self.stopped:
            return (f"sync: both sides changed {', '.join(self.conflicts)}, so nothing was merged and the memory is "
                    "as it was; run 'souveraine sync' by hand to resolve it")
        if self.outcome == "conflict":
            return (f"sync: stopped, both sides changed {', '.join(self.conflicts)}; resolve them, then "
                    "'souveraine sync --continue' (or 'souveraine sync --abort' to put the memory back)")
        if self.outcome == "refused":
            return f"sync: refused, nothing was kept: {'; '.join(self.breaches) or self.reason}"
        if self.outcome == "aborted":
            return f"sync: aborted; the memory is as it was before the sync ({self.reason})" if self.reason else \
                "sync: aborted; the memory is as it was before the sync"
        if self.outcome == "up to date":
            return f"sync: up to date with {where}"
        got = f"{self.received} commit(s) from {where}" if self.received else ""
        verb = {"merged": "merged", "fast-forwarded": "fast-forwarded with"}.get(self.outcome, "")
        parts = [f"{verb} {got}" if got and verb else ""] + [f"pushed {self.sent} commit(s)" if self.sent else ""]
        return "sync: " + ", ".join(p for p in parts if p)


def sync(memory: Memory, remote: str | None = None, *, stop: bool = True, attempts: int = ATTEMPTS) -> SyncResult:
    """Bring the remote's work in and this memory's out; see the module's docstring.

    ``stop``: on a conflict, leave the merge under way for a person (``resume``/``abort``);
    when False (unattended runs), put the memory back as it was and report the paths."""
    facts = _config(memory)
    branch = _branch(memory)
    remote = _remote(memory, remote, branch, facts)
    result = SyncResult(remote, branch)
    if git.in_progress(memory.root):
        raise Refused(_in_progress(memory), code="merge_in_progress")
    _ensure_driver(memory, facts)
    _own_from_now(memory)
    _drain(memory, result)
    for attempt in range(1, attempts + 1):
        result.attempts = attempt
        if not _fetch(memory, result):
            return result
        theirs = _tracking(memory, remote, branch, result)
        if theirs is not None and not _bring_in(memory, result, theirs, stop):
            return result
        if _push(memory, result, theirs):
            return result
        if result.outcome in ("offline", "refused"):
            return result
    raise GitError(f"{remote}/{branch} moved at every one of {attempts} attempts; sync again in a moment")


def abort(memory: Memory) -> SyncResult:
    """Give up a sync stopped on a conflict: the memory as it was before it; then commit what the spool kept."""
    remote, branch = _stopped(memory)
    result = SyncResult(remote, branch, outcome="aborted")
    if git.in_progress(memory.root) != "merge":
        raise UsageError("no sync (or merge) is under way; there is nothing to abort")
    with memory.lock():
        git.run(memory.root, "merge", "--abort")
        _forget_stop(memory)
    _drain(memory, result)
    return result


def resume(memory: Memory, attempts: int = ATTEMPTS) -> SyncResult:
    """Finish a sync stopped on a conflict, once its paths are resolved: judge, commit, push."""
    remote, branch = _stopped(memory)
    result = SyncResult(remote, branch)
    if git.in_progress(memory.root) != "merge":
        raise UsageError("no sync (or merge) is under way; run 'souveraine sync' instead")
    with memory.lock():
        conflicted = _unresolved(memory)
        left = [p for p in conflicted if _markers(memory, p)]
        if left:
            raise Refused(f"still unresolved: {', '.join(left)}; remove the conflict markers, then "
                          "'souveraine sync --continue' (or 'souveraine sync --abort')", code="conflict")
        if conflicted:
            git.run(memory.root, "add", "-A", "--", *conflicted)  # what the person resolved in the files
        theirs = git.run(memory.root, "rev-parse", "MERGE_HEAD").stdout.split()[0]
        incoming = _incoming(memory, theirs, git.head(memory.root))
        if not _judge_and_commit(memory, result, theirs):
            return result
        _forget_stop(memory)
    _drain(memory, result)
    result.outcome, result.received = "merged", incoming
    for attempt in range(1, attempts + 1):
        result.attempts = attempt
        if _push(memory, result, theirs) or result.outcome in ("offline", "refused"):
            return result
        if not _fetch(memory, result):
            return result
        theirs = _tracking(memory, remote, branch, result)
        if theirs is not None and not _bring_in(memory, result, theirs):
            return result
    raise GitError(f"{remote}/{branch} moved at every one of {attempts} attempts; sync again in a moment")


# -- the steps -----------------------------------------------------------------------------


def _fetch(memory: Memory, result: SyncResult) -> bool:
    """Fetch the branch into its remote-tracking ref; False (and the outcome set) when offline."""
    refspec = f"+refs/heads/{result.branch}:refs/remotes/{result.remote}/{result.branch}"
    done = git.run(memory.root, "fetch", "--quiet", "--no-tags", result.remote, refspec, check=False)
    if done.returncode == 0:
        return True
    error = _reason(done.stderr)
    if "couldn't find remote ref" in done.stderr:  # an empty remote: the first push makes the branch
        git.run(memory.root, "update-ref", "-d", f"refs/remotes/{result.remote}/{result.branch}", check=False)
        return True
    if _UNREACHABLE.search(done.stderr):
        result.outcome, result.reason = "offline", error
        result.sent = _ahead(memory, f"refs/remotes/{result.remote}/{result.branch}")
        return False
    raise GitError(f"git fetch {result.remote} failed: {error}")


def _tracking(memory: Memory, remote: str, branch: str, result: SyncResult) -> str | None:
    done = git.run(memory.root, "rev-parse", "--verify", "-q", f"refs/remotes/{remote}/{branch}^{{commit}}", check=False)
    return done.stdout.strip() or None


def _bring_in(memory: Memory, result: SyncResult, theirs: str, stop: bool = True) -> bool:
    """Merge ``theirs`` into HEAD under the lock; False when the sync stops here."""
    with memory.lock():
        head = git.head(memory.root)
        if head == theirs or _ancestor(memory, theirs, head):
            return True
        incoming = _incoming(memory, theirs, head)
        refused = _judge_incoming(memory, theirs, head)
        if refused:
            result.outcome, result.breaches = "refused", refused
            return False
        if head is None or _ancestor(memory, head, theirs):
            _fast_forward(memory, theirs)
            result.received += incoming
            result.outcome = "fast-forwarded"
            _after_change(memory)
        else:
            try:
                if not _merge(memory, result, theirs, stop) or not _judge_and_commit(memory, result, theirs):
                    return False
            except BaseException:  # interrupted, or git failed: never leave a half-merged tree
                if not result.stopped and git.in_progress(memory.root) == "merge":
                    git.run(memory.root, "merge", "--abort", check=False)
                raise
            result.received += incoming
            result.outcome = "merged"
    _drain(memory, result)
    return True


def _merge(memory: Memory, result: SyncResult, theirs: str, stop: bool = True) -> bool:
    done = git.run(memory.root, "merge", "--no-commit", "--no-ff", "--quiet", theirs, check=False,
                   env={"SOUVERAINE_JUDGED": "1"})
    result.warnings += _driver_words(done.stderr)
    if done.returncode == 0:
        return True
    conflicted = _unresolved(memory)
    if conflicted and git.in_progress(memory.root) == "merge":
        refused = [w for w in _driver_words(done.stderr) if "append-only" in w and "block id" not in w]
        if refused:  # the driver refused an append-only file: no person can merge that lawfully
            git.run(memory.root, "merge", "--abort", check=False)
            result.outcome, result.breaches = "refused", refused
            return False
        result.outcome, result.conflicts, result.stopped = "conflict", conflicted, stop
        if stop:
            _mark_stop(memory, result)
        else:
            git.run(memory.root, "merge", "--abort", check=False)
        return False
    if git.in_progress(memory.root) == "merge":
        git.run(memory.root, "merge", "--abort", check=False)
    result.outcome, result.reason = "refused", _last(done.stderr) or _last(done.stdout)
    result.breaches = [_dirty_reason(done.stderr) or result.reason]
    return False


def _judge_and_commit(memory: Memory, result: SyncResult, theirs: str) -> bool:
    """The staged merge judged by the laws, then committed; on a breach, the merge is given up."""
    from souveraine.laws import precommit

    breaches = precommit.problems(memory.root, follow_index=False)
    if breaches:
        git.run(memory.root, "merge", "--abort", check=False)
        _forget_stop(memory)
        result.outcome, result.breaches = "refused", breaches
        return False
    message = f"chore(sync): merge {result.remote}/{result.branch}"
    env = {**_author(memory), "SOUVERAINE_JUDGED": "1"}
    done = git.run(memory.root, "commit", "--quiet", "--no-verify", "-m", message, check=False, env=env)
    if done.returncode != 0:
        git.run(memory.root, "merge", "--abort", check=False)
        raise git.refusal(done, "git refused the merge commit")
    result.merge = git.head(memory.root)
    _after_change(memory)
    return True


def _push(memory: Memory, result: SyncResult, theirs: str | None) -> bool:
    """Push HEAD; True when the remote has it (or had it). False with the outcome unset: the remote moved."""
    remote_ref = f"refs/remotes/{result.remote}/{result.branch}"
    ahead = _ahead(memory, remote_ref if theirs else None, theirs)
    if ahead == 0:
        return True
    done = git.run(memory.root, "push", "--quiet", "--porcelain", result.remote,
                   f"HEAD:refs/heads/{result.branch}", check=False)
    if done.returncode == 0:
        result.sent += ahead
        if result.outcome == "up to date":
            result.outcome = "pushed"
        git.run(memory.root, "update-ref", remote_ref, "HEAD", check=False)
        _set_upstream(memory, result)
        return True
    words = done.stderr + done.stdout
    if _DECLINED.search(words):
        result.outcome = "refused"
        result.breaches = [line.removeprefix("remote: ").removeprefix("souveraine: ")
                           for line in words.splitlines() if line.startswith("remote: souveraine: ")] or [_last(words)]
        return False
    if _REJECTED.search(words):
        return False  # the remote moved since the fetch: another round
    if _UNREACHABLE.search(words):
        result.outcome, result.reason, result.sent = "offline", _reason(done.stderr), ahead
        return False
    raise GitError(f"git push {result.remote} failed: {_last(words)}")


# -- what comes in -------------------------------------------------------------------------


def _judge_incoming(memory: Memory, theirs: str, head: str | None) -> list[str]:
    """The other side's commits judged as the remote's guard would: a remote need not be guarded."""
    from souveraine.laws import history
    from souveraine.laws.repo import Repo

    revs = [theirs, "--not", head] if head else [theirs]
    return [f"{b.commit[:12]} {b}" if b.commit else str(b) for b in history.judge(Repo(memory.root), revs)[1]]


def _fast_forward(memory: Memory, theirs: str) -> None:
    done = git.run(memory.root, "merge", "--ff-only", "--quiet", theirs, check=False, env={"SOUVERAINE_JUDGED": "1"})
    if done.returncode != 0:
        raise Refused(f"sync: {_dirty_reason(done.stderr) or _last(done.stderr)}", code="dirty")


def _after_change(memory: Memory) -> None:
    """Caches follow what the merge brought: the search index and events (as after any commit), the counters."""
    from souveraine.laws import hooks
    from souveraine.tempos import counters

    hooks.after_commit(memory.root)
    counters.forget(memory)


def _drain(memory: Memory, result: SyncResult) -> None:
    """Commit the turns persist kept in its spool while it could not (during the merge)."""
    if not spool.entries(memory) or git.in_progress(memory.root):
        return
    done = spool.drain(memory)
    result.drained += done.get("turns", 0)


# -- the driver, the stop mark -------------------------------------------------------------


def _ensure_driver(memory: Memory, facts: dict[str, str]) -> None:
    """A clone does not copy the repository's config: install the driver where it is missing,
    and bring .gitattributes up to date (its own commit)."""
    from souveraine.laws import install
    from souveraine.sync import attributes

    command = facts.get(f"merge.{install.DRIVER}.driver", "")
    script = command[1:].split("' ", 1)[0] if command.startswith("'") else ""
    if not script or not Path(script).is_file():
        install.install(memory.root)
    attributes.ensure(memory)


def _own_from_now(memory: Memory) -> None:
    """From the first sync on, this device witnesses and synthesizes its own turns (sync.own)."""
    from souveraine.sync import own

    if not own.path(memory).exists():
        with memory.lock():
            own.start(memory)


def _mark_stop(memory: Memory, result: SyncResult) -> None:
    (git.git_dir(memory.root) / MARK).write_text(f"{result.remote} {result.branch}\n", encoding="utf-8")


def _forget_stop(memory: Memory) -> None:
    (git.git_dir(memory.root) / MARK).unlink(missing_ok=True)


def _stopped(memory: Memory) -> tuple[str, str]:
    try:
        remote, branch = (git.git_dir(memory.root) / MARK).read_text(encoding="utf-8").split()
        return remote, branch
    except (OSError, ValueError):
        branch = _branch(memory)
        return _remote(memory, None, branch), branch


def _in_progress(memory: Memory) -> str:
    operation = git.in_progress(memory.root)
    if operation == "merge" and (git.git_dir(memory.root) / MARK).exists():
        return ("a sync stopped on a conflict is under way; resolve the paths 'git status' lists, then "
                "'souveraine sync --continue' (or 'souveraine sync --abort')")
    return f"a {operation} is in progress; {git.how_to_finish(operation)}, then sync again"


# -- git facts -----------------------------------------------------------------------------


def _config(memory: Memory) -> dict[str, str]:
    """The remotes, the branches' upstreams and the merge driver, in one read of git's config."""
    done = git.run(memory.root, "config", "-z", "--get-regexp", r"^(remote\..*\.url|branch\..*\.remote|merge\..*\.driver)$",
                   check=False)
    pairs = (item.split("\n", 1) for item in done.stdout.split("\0") if item)
    return {key: value for key, value in (p for p in pairs if len(p) == 2)}


def _branch(memory: Memory) -> str:
    try:
        head = (git.git_dir(memory.root) / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        head = ""
    if not head.startswith("ref: refs/heads/"):
        raise UsageError("HEAD is detached; check out the memory's branch (git switch main) and sync again")
    return head.removeprefix("ref: refs/heads/")


def _remote(memory: Memory, given: str | None, branch: str, facts: dict[str, str] | None = None) -> str:
    facts = _config(memory) if facts is None else facts
    remotes = [key[len("remote."):-len(".url")] for key in facts if key.startswith("remote.") and key.endswith(".url")]
    if given:
        if given not in remotes:
            raise UsageError(f"no remote named '{given}'; known: {', '.join(remotes) or 'none'} "
                             "(add one with 'git remote add NAME URL')")
        return given
    configured = facts.get(f"branch.{branch}.remote", "")
    if configured in remotes:
        return configured
    if "origin" in remotes:
        return "origin"
    if len(remotes) == 1:
        return remotes[0]
    if not remotes:
        raise UsageError("this memory has no remote; add one with 'git remote add origin URL' (see docs/SYNC.md)")
    raise UsageError(f"which remote? this memory has {', '.join(remotes)}; name one: 'souveraine sync NAME'")


def _set_upstream(memory: Memory, result: SyncResult) -> None:
    key = f"branch.{result.branch}.remote"
    if not git.run(memory.root, "config", "--get", key, check=False).stdout.strip():
        git.run(memory.root, "config", key, result.remote, check=False)
        git.run(memory.root, "config", f"branch.{result.branch}.merge", f"refs/heads/{result.branch}", check=False)


def _ancestor(memory: Memory, older: str | None, newer: str | None) -> bool:
    if not older or not newer:
        return False
    return git.run(memory.root, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def _ahead(memory: Memory, remote_ref: str | None, theirs: str | None = None) -> int:
    if theirs is not None and theirs == git.head(memory.root):
        return 0
    args = ["HEAD", "--not", remote_ref] if remote_ref and _exists(memory, remote_ref) else ["HEAD"]
    done = git.run(memory.root, "rev-list", "--count", *args, "--", check=False)
    return int(done.stdout.strip() or 0) if done.returncode == 0 else 0


def _incoming(memory: Memory, theirs: str, head: str | None) -> int:
    args = [theirs, "--not", head] if head else [theirs]
    return int(git.run(memory.root, "rev-list", "--count", *args, "--").stdout.strip() or 0)


def _exists(memory: Memory, ref: str) -> bool:
    return git.run(memory.root, "rev-parse", "--verify", "-q", ref, check=False).returncode == 0


def _unresolved(memory: Memory) -> list[str]:
    done = git.run(memory.root, "diff", "--name-only", "--diff-filter=U", "-z", check=False)
    return [p for p in done.stdout.split("\0") if p]


_MARKERS = re.compile(rb"^(?:<{7} |>{7} |={7}$)", re.MULTILINE)


def _markers(memory: Memory, relpath: str) -> bool:
    """Whether the file still holds git's conflict markers."""
    try:
        return _MARKERS.search((memory.root / relpath).read_bytes()) is not None
    except OSError:
        return False


def _driver_words(stderr: str) -> list[str]:
    return [line.removeprefix("souveraine: ") for line in stderr.splitlines() if line.startswith("souveraine: ")]


def _dirty_reason(stderr: str) -> str | None:
    if "would be overwritten by merge" not in stderr:
        return None
    paths = [line.strip() for line in stderr.splitlines() if line.startswith(("\t", "    "))]
    return (f"uncommitted changes in {', '.join(paths) or 'the work tree'} would be overwritten by the merge; "
            "commit them (or let the tool that wrote them), then sync again")


def _reason(stderr: str) -> str:
    """git's first words on what went wrong, without its "fatal: "."""
    lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
    first = next((line for line in lines if _UNREACHABLE.search(line)), lines[0] if lines else "")
    return re.sub(r"^(?:fatal|error): ", "", first)


def _last(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _author(memory: Memory) -> dict[str, str]:
    section = memory.config["git"]
    return git.author_env(memory.root, section["author_name"], section["author_email"])
