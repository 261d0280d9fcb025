"""Two devices, one memory, at full size: 2 × 200 exchanges interleaved minute by minute, each
device syncing every 10 of its own through a guarded bare remote.

    python bench/sync_devices.py [--each 200] [--every 10] [--json]

Checks what must hold, and times it: both clones and the remote on one tree, every exchange
journaled once and in time order, each witnessed by reflection exactly once and synthesized
by the archivist exactly once, `verify` clean on both clones and the remote's history
lawful, and a third clone from scratch agreeing. The suite runs the same scenario smaller
(tests/sync/test_sync.py); this is the size it is too slow for.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

START = datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc)
SPOKEN = ("user", "assistant")


def say(memory, n: int, who: str, commit: bool = True):
    """One exchange at minute ``n`` of the day, as an agent's Stop hook would persist it."""
    from souveraine.tempos.persist import persist
    from souveraine.tempos.transcripts import Exchange

    at = START + timedelta(minutes=n)
    os.environ["SOUVERAINE_NOW"] = at.isoformat()
    return persist(memory, Exchange(f"{who} answers {n}.", f"{who} asks {n}?", f"{who}-session", at), commit=commit)


def interleave(devices: dict, each: int, every: int, first: int = 0) -> list[str]:
    """Each device persists ``each`` exchanges, in turn minute by minute, and syncs after every
    ``every`` of its own (the second device half a period later); the outcomes, in order."""
    from souveraine.sync import sync as flow

    names = list(devices)
    outcomes = []
    for n in range(first, first + each * len(names)):
        who = names[n % len(names)]
        mine = (n - first) // len(names) + 1
        say(devices[who], n, who, commit=mine % 5 == 0)
        if mine % every == (names.index(who) * every // 2) % every:
            outcomes.append(flow.sync(devices[who]).outcome)
    return outcomes


def settle(devices: dict) -> None:
    """Each device witnesses and synthesizes what it still holds, then all sync until they agree."""
    from souveraine.sync import sync as flow
    from souveraine.tempos import archive, reflect

    for memory in devices.values():
        reflect.run(memory, force=True, extractive_only=True)
        archive.run(memory, force=True, extractive_only=True)
    for memory in [*devices.values(), *devices.values()]:
        flow.sync(memory)


@contextmanager
def tally():
    """Which turns each witness and each synthesis took in, as the tempos composed them."""
    from souveraine.tempos import archive, reflect

    counted = {"witnessed": Counter(), "synthesized": Counter()}
    witness, compose = reflect.witness, archive.compose

    def witnessing(turns, *args, **kwargs):
        counted["witnessed"].update(t.block_id for t in turns)
        return witness(turns, *args, **kwargs)

    def composing(*args, **kwargs):
        plan = compose(*args, **kwargs)
        counted["synthesized"].update(t.block_id for t in plan.turns if t.role in SPOKEN) if plan else None
        return plan

    reflect.witness, archive.compose = witnessing, composing
    try:
        yield counted
    finally:
        reflect.witness, archive.compose = witness, compose


def spoken(memory) -> list[tuple[str, str, str]]:
    """The exchanges the devices persisted (from START on): (time, block id, words)."""
    from souveraine.store import journal

    return [(t.at.isoformat(), t.block_id, t.text) for t in journal.turns(memory.root, since=START.date())
            if t.role in SPOKEN]


def tree(root: Path, rev: str = "HEAD") -> str:
    return _git(root, "rev-parse", f"{rev}^{{tree}}")


def setup(where: Path):
    """A memory made by init, pushed to a guarded bare remote, and a second device cloned from it."""
    from souveraine.bootstrap import init
    from souveraine.laws import install
    from souveraine.store.memory import Memory
    from souveraine.sync import sync as flow

    remote = where / "shared.git"
    _git(where, "init", "-q", "--bare", "--initial-branch=main", str(remote))
    install.install_bare(remote)
    root = init(where / "laptop", identity="ada").root
    config = root / "souveraine.toml"
    config.write_text(config.read_text().replace('tempos = "detached"', 'tempos = "inline"'))
    _git(root, "commit", "-q", "-am", "chore(config): tempos inline")
    _git(root, "remote", "add", "origin", str(remote))
    laptop = Memory(root)
    flow.sync(laptop)
    return remote, laptop, clone(remote, where / "server")


def clone(remote: Path, where: Path):
    """A device that starts from the shared memory, as a person would: git clone, then hook install."""
    from souveraine.laws import install
    from souveraine.store.memory import Memory

    _git(where.parent, "clone", "-q", str(remote), str(where))
    install.install(where)
    return Memory(where)


def facts(devices: dict, remote: Path, counted: dict, third) -> dict:
    """What the scenario must show, measured."""
    from souveraine.laws import history
    from souveraine.laws.repo import Repo
    from souveraine.laws.verify import verify

    first = next(iter(devices.values()))
    turns = spoken(first)
    ids = [block for _, block, _ in turns]
    trees = {tree(m.root) for m in devices.values()} | {tree(remote, "main"), tree(third.root)}
    return {
        "exchanges": len(turns) // 2,
        "one_tree": len(trees) == 1,
        "each_once": len(set(turns)) == len(turns) and all(spoken(m) == turns for m in [*devices.values(), third]),
        "time_order": [at for at, _, _ in turns] == sorted(at for at, _, _ in turns),
        "witnessed": Counter(counted["witnessed"][i] for i in ids),
        "synthesized": Counter(counted["synthesized"][i] for i in ids),
        "verify": {name: len(verify(m).breaches) for name, m in devices.items()},
        "remote_breaches": len(history.judge(Repo(remote), ["main"])[1]),
    }


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--each", type=int, default=200)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sync-devices-") as tmp:
        where = Path(tmp)
        os.environ.update({"HOME": tmp, "GIT_CONFIG_GLOBAL": str(where / ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"})
        (where / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@localhost\n")
        remote, laptop, server = setup(where)
        devices = {"laptop": laptop, "server": server}
        started = time.perf_counter()
        with tally() as counted:
            outcomes = interleave(devices, args.each, args.every)
            settle(devices)
        elapsed = time.perf_counter() - started
        found = facts(devices, remote, counted, clone(remote, where / "third"))
    found = {**found, "seconds": round(elapsed, 1), "syncs": dict(Counter(outcomes)),
             "witnessed": dict(found["witnessed"]), "synthesized": dict(found["synthesized"])}
    print(json.dumps(found, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in found.items()))
    ok = found["one_tree"] and found["each_once"] and found["time_order"] and set(found["witnessed"]) == {1} \
        and set(found["synthesized"]) == {1} and not any(found["verify"].values()) and not found["remote_breaches"]
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
