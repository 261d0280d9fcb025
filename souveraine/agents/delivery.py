"""Delivery of events to ``[events] command``: after the commit, in commit order, once each.

``python -m souveraine.agents.delivery ROOT SHA`` is started, detached, by
``events.after_commit``. It waits until the command that made the commit has let the
memory go (so the events command may itself call souveraine), then, holding
``.souveraine/events.lock`` so two deliveries never interleave, runs the command once for
each event of the commits after the last delivered one (``.souveraine/events.cursor``) up
to SHA: the event as JSON on stdin, ``SOUVERAINE_EVENT`` and ``SOUVERAINE_MEMORY`` set, in
the memory's folder. A failing command is logged to ``.souveraine/events.log`` and the
next event is still delivered; the commit is never touched.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

from souveraine.agents import events
from souveraine.store import git
from souveraine.store.atomic import atomic_write
from souveraine.store.lock import locked
from souveraine.store.memory import Memory

CURSOR = "events.cursor"
BACKLOG = 100          # a cursor further behind than this is stale: deliver only the new commit
TIMEOUT = 300          # seconds one run of the command may take


def deliver(memory: Memory, sha: str, command: str | None = None) -> list[dict]:
    """Run the events command for every undelivered event up to ``sha``; returns what was run."""
    command = memory.config["events"]["command"] if command is None else command
    if not command:
        return []
    with locked(memory.cache / "events.lock", TIMEOUT * 2, "the events delivery"):
        pending = _undelivered(memory, sha)
        runs = [run(memory, command, event) for event in pending]
        if pending:
            atomic_write(memory.cache / CURSOR, sha + "\n")
    return runs


def run(memory: Memory, command: str, event: events.Event) -> dict:
    env = {**git.sealed_env(memory.root), "SOUVERAINE_EVENT": event.name, "SOUVERAINE_MEMORY": str(memory.root)}
    env.pop("GIT_CEILING_DIRECTORIES", None)
    payload = json.dumps(event.to_dict(), ensure_ascii=False)
    try:
        done = subprocess.run(command, shell=True, input=payload, text=True, cwd=memory.root, env=env,
                              capture_output=True, timeout=TIMEOUT)
        code = done.returncode
        if code:
            _log(f"{event.name} {event.id}: '{command}' exited {code}: {done.stderr.strip()[-500:]}")
    except subprocess.TimeoutExpired:
        code = None
        _log(f"{event.name} {event.id}: '{command}' ran over {TIMEOUT}s and was stopped")
    return {"event": event.name, "id": event.id, "exit": code}


def begin(memory: Memory, sha: str) -> None:
    """Before the first delivery starts, mark where it starts: just before ``sha``.

    Called in commit order by the committing process, so whichever delivery runs first
    delivers every commit since, in order, and the others find theirs already done.
    """
    path = memory.cache / CURSOR
    if path.exists():
        return
    parent = memory.git("rev-parse", "-q", "--verify", f"{sha}^", check=False).stdout.strip()
    atomic_write(path, parent + "\n")


def _undelivered(memory: Memory, sha: str) -> list[events.Event]:
    cursor = _cursor(memory)
    if cursor == sha or (cursor and _ancestor(memory, sha, cursor)):
        return []                       # a later delivery already took this commit along
    if cursor and _behind(memory, cursor, sha) <= BACKLOG:
        return events.events(memory, cursor, sha)
    return events.for_commit(memory, sha)


def _cursor(memory: Memory) -> str | None:
    try:
        return (memory.cache / CURSOR).read_text().strip() or None
    except OSError:
        return None


def _ancestor(memory: Memory, older: str, newer: str) -> bool:
    return memory.git("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def _behind(memory: Memory, cursor: str, sha: str) -> int:
    """Commits from ``cursor`` to ``sha``; past the backlog when cursor is not an ancestor (history moved)."""
    if not _ancestor(memory, cursor, sha):
        return BACKLOG + 1
    return int(memory.git("rev-list", "--count", f"{cursor}..{sha}").stdout.strip() or 0)


def _wait_for_the_committer(memory: Memory) -> None:
    """The commit's own command holds the memory's lock until it is done; let it finish first."""
    with memory.lock(timeout=max(60.0, memory.config["git"]["lock_timeout"])):
        pass


def _log(line: str) -> None:
    print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} souveraine events: {line}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    root, sha = Path(argv[0]), argv[1]
    try:
        memory = Memory(root)
        _wait_for_the_committer(memory)
        deliver(memory, sha)
    except Exception as exc:  # noqa: BLE001 — detached: the log is the only place a failure can go
        _log(f"delivery of {sha[:12]} failed: {type(exc).__name__}: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
