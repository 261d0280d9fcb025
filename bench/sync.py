"""Benchmark: `souveraine sync` beside `git pull --no-rebase && git push`, on the same clones.

    python bench/sync.py [--years 1 10] [--runs 7] [--json]

A memory of N years from bench/generate.py is pushed to a guarded bare remote and cloned
twice (`hook install` in each, as docs/SYNC.md says). Two cases, each measured on the
laptop clone, the two commands in turn on the very same state (the clone and the remote
are put back between runs):

- nothing to merge: both clones up to date;
- 10 turns each side: the server persisted 10 exchanges and pushed them, the laptop
  persisted 10 of its own on the same day; the laptop then brings the server's in
  (the day's journal merged by the driver, in time order) and pushes the merge.

`git pull` runs on the same clone, so the same hooks and merge driver take part: without
the driver it would stop on a conflict in the day's journal every time. Figures are
medians, and the ratio is what to compare across machines.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import generate  # noqa: E402
from bench.common import SOUVERAINE, ms, table  # noqa: E402

PULL = "git pull -q --no-rebase --no-edit origin main && git push -q origin HEAD:main"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout.strip()


def devices(built, where: Path) -> tuple[Path, Path, Path]:
    """A guarded bare remote holding the memory, and two clones of it with hooks and driver."""
    from souveraine.laws.install import install, install_bare

    remote = where / "shared.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(built.root), str(remote)], check=True)
    install_bare(remote)
    _tempos_inline(remote, where / "setup")
    clones = []
    for name in ("laptop", "server"):
        clone = where / name
        subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True)
        install(clone)
        git(clone, "config", "user.name", "Bench")
        git(clone, "config", "user.email", "bench@localhost")
        clones.append(clone)
    return remote, clones[0], clones[1]


def _tempos_inline(remote: Path, scratch: Path) -> None:
    """Reflect and archive inside persist's process: a detached one would commit mid-measurement."""
    subprocess.run(["git", "clone", "-q", str(remote), str(scratch)], check=True)
    config = scratch / "souveraine.toml"
    config.write_text(config.read_text().replace('tempos = "detached"', 'tempos = "inline"'))
    for args in (["-c", "user.name=Bench", "-c", "user.email=bench@localhost", "commit", "-q", "--no-verify", "-am",
                  "chore(config): tempos inline for the bench"], ["push", "-q", "origin", "HEAD:main"]):
        subprocess.run(["git", "-C", str(scratch), *args], check=True)


def persist_turns(clone: Path, who: str, start: datetime, count: int) -> None:
    """``count`` exchanges persisted on ``clone`` by the real command, one a minute."""
    for n in range(count):
        at = start + timedelta(minutes=n)
        env = {**os.environ, "SOUVERAINE_NOW": at.isoformat()}
        subprocess.run([*SOUVERAINE, "--memory", str(clone), "persist", "--at", at.isoformat(),
                        "--user", f"{who} asks about the harbour, turn {n}?",
                        "--assistant", f"{who} answers: the boat leaves at {n + 7} tomorrow."],
                       env=env, check=True, capture_output=True)


def state(remote: Path, laptop: Path) -> tuple[str, str]:
    return git(remote, "rev-parse", "main"), git(laptop, "rev-parse", "HEAD")


def restore(remote: Path, laptop: Path, saved: tuple[str, str]) -> None:
    """Put the remote's branch and the laptop back where they were (the guard's walls are for pushes)."""
    git(remote, "update-ref", "refs/heads/main", saved[0])
    git(laptop, "reset", "-q", "--hard", saved[1])
    git(laptop, "update-ref", "refs/remotes/origin/main", saved[0])
    subprocess.run(["rm", "-f", str(laptop / ".souveraine" / "counters.json")])


def timed(argv: list[str], cwd: Path, shell: bool = False) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv if not shell else argv[0], cwd=cwd, shell=shell, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: {argv} failed: {done.stderr.strip() or done.stdout.strip()}")
    return elapsed


def measure(remote: Path, laptop: Path, runs: int) -> dict[str, float]:
    """Medians of sync and of pull+push from the same saved state, measured in turn."""
    saved = state(remote, laptop)
    commands = {"sync": ([*SOUVERAINE, "--memory", str(laptop), "sync"], False), "git pull + push": ([PULL], True)}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for n in range(runs + 1):
        for name, (argv, shell) in commands.items():
            elapsed = timed(argv, laptop, shell)
            if n:  # the first round warms the caches
                times[name].append(elapsed)
            restore(remote, laptop, saved)
    return {name: statistics.median(values) for name, values in times.items()}


def bench(years: float, runs: int) -> list[dict]:
    built = generate.cached(generate.Shape.years(years))
    rows = []
    with tempfile.TemporaryDirectory(prefix="sync-bench-", ignore_cleanup_errors=True) as tmp:
        remote, laptop, server = devices(built, Path(tmp))
        quiet = measure(remote, laptop, runs)
        rows.append({"years": years, "case": "nothing to merge", **quiet})
        print(rows[-1], file=sys.stderr)
        evening = datetime.fromisoformat(generate.END.isoformat() + "T20:00:00+00:00").astimezone(timezone.utc)
        persist_turns(server, "server", evening, 10)
        subprocess.run([*SOUVERAINE, "--memory", str(server), "sync"], check=True, capture_output=True)
        persist_turns(laptop, "laptop", evening + timedelta(seconds=30), 10)
        git(laptop, "fetch", "-q", "origin")
        busy = measure(remote, laptop, runs)
        rows.append({"years": years, "case": "10 turns each side", **busy})
        print(rows[-1], file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, nargs="+", default=[1, 10])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [row for years in args.years for row in bench(years, args.runs)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(table([(f"{r['years']:g} y", r["case"], ms(r["sync"]), ms(r["git pull + push"]),
                  f"{r['sync'] / r['git pull + push']:.2f}×") for r in rows],
                ("memory", "case", "souveraine sync", "git pull --no-rebase && git push", "ratio")))


if __name__ == "__main__":
    main()
