"""The git hooks: each judges, prints its refusals on stderr and returns an exit status.

Entered through `python -m souveraine.laws HOOK` (no Click, no GitPython) and through
`souveraine hook HOOK`. Each hook imports only what it uses: they run on every commit.
Hooks never prompt; git runs them from cron, editors and Obsidian's git plugin alike.
"""

import os
import sys

CLIENT = ("pre-commit", "commit-msg", "post-commit", "pre-merge-commit", "post-merge", "reference-transaction")
SERVER = ("pre-receive",)


def main(argv: list[str], stdin=None) -> int:
    if not argv or argv[0] not in HOOKS:
        known = ", ".join(HOOKS)
        print(f"souveraine: usage: python -m souveraine.laws HOOK [ARGS], HOOK one of: {known}", file=sys.stderr)
        return 2
    name, args = argv[0], argv[1:]
    from souveraine.errors import SouveraineError

    try:
        lines = HOOKS[name](args, stdin or sys.stdin)
    except SouveraineError as exc:
        lines = [f"{name}: {exc}"]
    except Exception as exc:  # a bug must not pass a commit unjudged, nor bury the reason in a traceback
        if os.environ.get("SOUVERAINE_DEBUG"):
            raise
        lines = [f"{name}: the laws could not be checked ({type(exc).__name__}: {exc}); "
                 "set SOUVERAINE_DEBUG=1 for a traceback and report it"]
    for line in lines:
        print(f"souveraine: {line}", file=sys.stderr)
    return 1 if lines else 0


def pre_commit(args: list[str], stdin) -> list[str]:
    from souveraine.laws import precommit

    return [str(b) for b in precommit.hook(_root())]


def pre_merge_commit(args: list[str], stdin) -> list[str]:
    """A merge git commits by itself (`git merge`, `git pull`). Git has not written MERGE_HEAD
    yet, so append-only files are judged as merged against HEAD: every entry kept whole."""
    from souveraine.laws import precommit

    return [str(b) for b in precommit.breaches(_root(), inherit=True, merging=True)]


def commit_msg(args: list[str], stdin) -> list[str]:
    if not args:
        return ["commit-msg: the message file's path is missing (git passes it)"]
    from souveraine.laws import messages

    with open(args[0], encoding="utf-8", errors="replace") as handle:
        message = handle.read()
    # The message file lives in the git dir; MERGE_HEAD beside it means this commit has two parents.
    merge = os.path.exists(os.path.join(os.path.dirname(os.path.abspath(args[0])), "MERGE_HEAD"))
    return [str(b) for b in messages.breaches(message, lambda: _staged_diff(), merge=merge)]


def post_commit(args: list[str], stdin) -> list[str]:
    """Keep the caches in step with the new commit; never fails the commit (git ignores its exit)."""
    after_commit(_root())
    return []


def post_merge(args: list[str], stdin) -> list[str]:
    """A merge (or a pull) changed the tree: the same cache work as after a commit; persist's
    counts rebuilt (the merge may have set turns anywhere in a day file); and from now on this
    device witnesses and synthesizes its own turns (sync.own)."""
    root = _root()
    after_commit(root)
    from souveraine.store.memory import Memory
    from souveraine.sync import own
    from souveraine.tempos import counters

    memory = Memory(root)
    counters.forget(memory)
    if not own.path(memory).exists():
        from souveraine.errors import LockTimeout

        try:
            with memory.lock(timeout=0):   # never wait in a hook: the next merge or sync starts it
                own.start(memory)
        except LockTimeout:
            pass
    return []


def reference_transaction(args: list[str], stdin) -> list[str]:
    """Once a commit pre-commit could not judge exists (an amend): judged by its real parents."""
    if not args or args[0] != "prepared":
        return []
    from souveraine.laws import amend
    from souveraine.laws.repo import Repo

    root = _root()
    repo = Repo(root, inherit=True)
    gitdir = repo.out("rev-parse", "--absolute-git-dir").strip()
    from souveraine.laws.remote import parse_updates

    return [str(b) for b in amend.judge(repo, gitdir, parse_updates(stdin.read()))]


def after_commit(root) -> None:
    """The post-commit work, for the hook and for the tool's own commits (laws.inprocess)."""
    try:
        from souveraine.recall import index
    except ImportError:
        index = None
    _after_commit(index, "recall.index", root)
    try:
        from souveraine.agents import events
    except ImportError:
        events = None
    _after_commit(events, "agents.events", root)


def pre_receive(args: list[str], stdin) -> list[str]:
    from souveraine.laws import remote

    gitdir = os.path.realpath(os.environ.get("GIT_DIR", "."))
    breaches = remote.guard(gitdir, remote.parse_updates(stdin.read()))
    return [f"{b.commit[:12]} {b}" if b.commit else str(b) for b in breaches]


HOOKS = {"pre-commit": pre_commit, "commit-msg": commit_msg, "post-commit": post_commit,
         "pre-merge-commit": pre_merge_commit, "post-merge": post_merge,
         "reference-transaction": reference_transaction, "pre-receive": pre_receive}


def _after_commit(module, name: str, root) -> None:
    if module is None:
        return
    try:
        module.after_commit(root)
    except Exception as exc:  # noqa: BLE001 — a cache falling behind must not look like a failed commit
        print(f"souveraine: post-commit: {name} failed ({type(exc).__name__}: {exc}); the commit is kept",
              file=sys.stderr)


def _root():
    """Hooks run at the work tree's root; `souveraine hook …` by hand may run below it."""
    from pathlib import Path

    cwd = Path.cwd()
    if (cwd / ".git").exists():
        return cwd
    from souveraine.store import git

    return Path(git.run(cwd, "rev-parse", "--show-toplevel", sealed=False).stdout.strip())


def _staged_diff():
    from souveraine.laws.repo import Repo
    from souveraine.laws.snapshot import staged

    return staged(Repo(_root(), inherit=True)).diffs[0]
