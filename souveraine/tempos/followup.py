"""The slow tempos a persist made due — reflect and archive — run off the turn's path.

persist commits the turn first. Then, as ``[subconscious] tempos`` says, the tempos that
are due start in a detached process (``detached``, the default: persist returns at once),
run in the same process after the commit (``inline``), or are left to the scheduler's
``check`` (``scheduler``). Each tempo computes without the memory's lock — a model may
take its time — and takes the lock only to write and commit, as its own commit
(``chore(reflect): …``, ``chore(archive): …``).

One runner at a time (a flock on ``.souveraine/tempos.lock``). A tempo that fails backs
off — 1, 2, 4 … minutes, at most 6 hours — instead of being tried again by every
persist; ``.souveraine/tempos.json`` keeps its failures, and the next persist tells the
inner voice once.
"""

import fcntl
import json
import os
import subprocess
import sys
import time

from souveraine.errors import ConfigError
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

STATE = "tempos.json"
RUNNER = "tempos.lock"
LOG = "tempos.log"
MODES = ("detached", "inline", "scheduler")
TEMPOS = ("reflection", "archive")
FIRST_WAIT, LONGEST_WAIT = 60, 6 * 3600


def mode(memory: Memory) -> str:
    chosen = memory.config["subconscious"]["tempos"]
    if chosen not in MODES:
        raise ConfigError(f"{memory.root / 'souveraine.toml'}: [subconscious] tempos must be one of "
                          f"{', '.join(MODES)}, not {chosen!r}")
    return chosen


def start(memory: Memory, names: list[str]) -> dict:
    """Set the due tempos going after a commit, as the configured mode says; what was done, by name."""
    how = mode(memory)
    waiting = {name: backing_off(memory, name) for name in names}
    ready = [name for name in names if not waiting[name]]
    told = {name: {"status": "backing off", "until": waiting[name]} for name in names if waiting[name]}
    if not ready or how == "scheduler":
        return {**told, **{name: {"status": "left to the scheduler"} for name in ready}}
    if how == "inline":
        return {**told, **run(memory, ready)}
    if _runner_busy(memory):
        return {**told, **{name: {"status": "running already"} for name in ready}}
    pid = _detach(memory, ready)
    return {**told, **{name: {"status": "started", "pid": pid} for name in ready}}


def run(memory: Memory, names: list[str]) -> dict:
    """Run each tempo named (reflection, archive), one runner at a time; failures back off."""
    from souveraine.tempos import archive, reflect

    memory.cache.mkdir(parents=True, exist_ok=True)
    fd = os.open(memory.cache / RUNNER, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return {name: {"status": "running already"} for name in names}
        done = {}
        for name in names:
            tempo = reflect if name == "reflection" else archive
            try:
                done[name] = {"status": "done", **tempo.run(memory)}
            except Exception as exc:  # a failed tempo must not vanish, nor be retried at once
                until = failed(memory, name, f"{exc}")
                done[name] = {"status": "failed", "error": str(exc), "until": until}
            else:
                succeeded(memory, name)
        return done
    finally:
        os.close(fd)


def backing_off(memory: Memory, name: str) -> str | None:
    """When the tempo may be tried again (ISO time) while it backs off after a failure; else None."""
    entry = _state(memory).get(name) or {}
    until = entry.get("retry_after") or 0
    return _iso(until) if until > time.time() else None


def failed(memory: Memory, name: str, error: str) -> str:
    state = _state(memory)
    entry = state.get(name) or {}
    failures = int(entry.get("failures") or 0) + 1
    until = time.time() + min(FIRST_WAIT * 2 ** (failures - 1), LONGEST_WAIT)
    state[name] = {"failures": failures, "retry_after": until, "error": error[:400], "told": False}
    _save(memory, state)
    return _iso(until)


def succeeded(memory: Memory, name: str) -> None:
    state = _state(memory)
    if state.pop(name, None) is not None:
        _save(memory, state)


def news(memory: Memory) -> list[tuple[str, str]]:
    """Failures the inner voice has not heard of yet: (urgency, text); ``told`` marks them heard."""
    said = []
    for name, entry in sorted(_state(memory).items()):
        if isinstance(entry, dict) and not entry.get("told"):
            said.append(("medium", f"The {name} failed ({entry.get('failures')} time(s) in a row): "
                                   f"{entry.get('error')}; next try after {_iso(entry.get('retry_after') or 0)}."))
    return said


def told(memory: Memory) -> None:
    state = _state(memory)
    changed = False
    for entry in state.values():
        if isinstance(entry, dict) and not entry.get("told"):
            entry["told"] = changed = True
    if changed:
        _save(memory, state)


def _runner_busy(memory: Memory) -> bool:
    try:
        fd = os.open(memory.cache / RUNNER, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _detach(memory: Memory, names: list[str]) -> int:
    """A process of its own session that outlives this one; its output goes to the log."""
    memory.cache.mkdir(parents=True, exist_ok=True)
    with open(memory.cache / LOG, "ab") as log:
        child = subprocess.Popen([sys.executable, "-m", "souveraine.tempos.followup", str(memory.root), *names],
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                 close_fds=True)
    return child.pid


def _state(memory: Memory) -> dict:
    try:
        data = json.loads((memory.cache / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(memory: Memory, state: dict) -> None:
    atomic_write(memory.cache / STATE, json.dumps(state, indent=1) + "\n")


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch))


def main(argv: list[str] | None = None) -> int:
    """``python -m souveraine.tempos.followup ROOT NAME…``: the detached runner."""
    from souveraine.laws import inprocess

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m souveraine.tempos.followup MEMORY [reflection] [archive]", file=sys.stderr)
        return 2
    inprocess.enable()
    memory = Memory(args[0])
    names = [name for name in args[1:] if name in TEMPOS] or list(TEMPOS)
    done = run(memory, names)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    for name, result in done.items():
        print(f"{stamp} {name}: {result.get('status')} {result.get('error') or result.get('reason') or ''}".rstrip(),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
