"""Benchmark: `persist` per turn (commit included) and `surface`, on a memory with a year of journal.

    python bench/persist.py [--days 365] [--turns-per-day 40] [--runs 15] [--json]

Each run is the real command in a fresh process, as an agent's hook pays for it. The
floor is measured in the same run, on the same memory: a plain `git commit` of a
one-line change (the memory's hooks included, as every commit there runs them), the
same without hooks, and the interpreter starting the CLI (`persist --help`). persist with
``--no-n1`` beside it gives what the subconscious costs a process: imports and work. Figures are medians; the ratios are what to compare across machines.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from souveraine.bootstrap import init  # noqa: E402
from souveraine.store import journal  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

BIN = [sys.executable, str(ROOT / "bin" / "souveraine")]
WORDS = ("the garden needs water before the frost and the lease ends in spring while Ana "
         "plans the trip to Lisbon and the build stays green after the migration").split()


def year_of_journal(memory: Memory, days: int, per_day: int, last: date) -> int:
    """Write ``days`` day files through store.journal, in one commit; returns the turns written."""
    turns = 0
    with memory.change(f"chore(journal): a year of journal for the bench ({days} days)") as change:
        for n in range(days):
            day = last - timedelta(days=days - n)
            text, taken = journal.header(day), set()
            for k in range(per_day):
                at = datetime(day.year, day.month, day.day, 8 + k * 12 // per_day, k % 60, k % 60)
                role = "user" if k % 2 == 0 else "assistant"
                words = " ".join(WORDS[(n + k + i) % len(WORDS)] for i in range(12 + k % 20)).capitalize() + "."
                block = journal.block_id(at, role, words, "bench", taken)
                taken.add(block)
                text += journal.render(at, role, words, "bench", block)
                turns += 1
            change.write(journal.day_path(day), text)
    return turns


class Times(list):
    """Wall-clock seconds of each run, and beside them the CPU seconds the run and every process it
    started spent (steadier than wall time on a loaded machine)."""

    def __init__(self):
        super().__init__()
        self.cpu: list[float] = []


def timed(args, env, cwd=None, into: Times | None = None) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])}… failed: {done.stderr.strip() or done.stdout.strip()}")
    if into is not None:
        into.append(elapsed)
        into.cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--turns-per-day", type=int, default=40)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.org\n")
        env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
        os.environ.update({k: env[k] for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")})
        memory = Memory(init(Path(tmp) / "memory", identity="bench").root)
        env["SOUVERAINE_MEMORY"] = str(memory.root)
        start = datetime.fromisoformat("2026-11-30T09:00:00+00:00")
        made = time.perf_counter()
        turns = year_of_journal(memory, options.days, options.turns_per_day, start.date())
        made = time.perf_counter() - made

        def at(n: int) -> dict:
            return {**env, "SOUVERAINE_NOW": (start + timedelta(minutes=n)).isoformat()}

        timed([*BIN, "persist", "--user", "warm up", "--assistant", "The counters' cache is built now."], at(0))
        persist, plain, batched, surface, commit, bare, start_cli = (Times() for _ in range(7))
        for n in range(1, options.runs + 1):
            answer = (f"I'll follow up on item {n} tomorrow." if n % 2 else f"Item {n} is done; the answer is {n * 7}.")
            timed([*BIN, "persist", "--user", f"What about item {n}?", "--assistant", answer, "--session", "bench"],
                  at(n), into=persist)
            timed([*BIN, "persist", "--user", f"And item {n}b?", "--assistant", answer.replace(str(n), f"{n}b"),
                   "--session", "bench", "--no-n1"], at(n), into=plain)
            timed([*BIN, "persist", "--user", f"Batched {n}", "--assistant", "Fine.", "--no-commit"], at(n), into=batched)
            timed([*BIN, "surface"], at(n), into=surface)
            timed([*BIN, "persist", "--help"], env, into=start_cli)
            line = memory.root / "people" / "bench.md"
            with open(line, "a") as handle:
                handle.write(f"line {n}\n")
            timed(["git", "-C", str(memory.root), "commit", "-q", "-m", f"docs(people): line {n}",
                   "--", "people/bench.md"] if n > 1 else
                  ["sh", "-c", f"git -C '{memory.root}' add people/bench.md && "
                               f"git -C '{memory.root}' commit -q -m 'docs(people): line 1'"], env, into=commit)
            with open(line, "a") as handle:
                handle.write(f"bare {n}\n")
            timed(["git", "-C", str(memory.root), "commit", "-q", "--no-verify", "-m",
                   f"docs(people): bare {n}", "--", "people/bench.md"], env, into=bare)
        timed([*BIN, "persist", "--flush"], env)

    median = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    figures = {
        "journal": {"days": options.days, "turns": turns, "seconds_to_write": round(made, 2)},
        "runs": options.runs,
        "persist_ms": round(median(persist), 1),
        "persist_no_n1_ms": round(median(plain), 1),
        "persist_no_commit_ms": round(median(batched), 1),
        "surface_ms": round(median(surface), 1),
        "git_commit_ms": round(median(commit), 1),
        "git_commit_no_hooks_ms": round(median(bare), 1),
        "cli_start_ms": round(median(start_cli), 1),
    }
    figures["subconscious_ms"] = round(figures["persist_ms"] - figures["persist_no_n1_ms"], 1)
    figures["cpu_ms"] = {name: round(median(times.cpu), 1) for name, times in (
        ("persist", persist), ("persist_no_n1", plain), ("persist_no_commit", batched), ("surface", surface),
        ("git_commit", commit), ("git_commit_no_hooks", bare), ("cli_start", start_cli))}
    figures["cpu_ms"]["subconscious"] = round(figures["cpu_ms"]["persist"] - figures["cpu_ms"]["persist_no_n1"], 1)
    figures["persist_over_git_commit"] = round(figures["persist_ms"] / figures["git_commit_ms"], 2)
    figures["surface_over_git_commit"] = round(figures["surface_ms"] / figures["git_commit_ms"], 2)
    figures["targets_met"] = {"persist_under_150ms": figures["persist_ms"] < 150, "surface_under_100ms": figures["surface_ms"] < 100}
    if options.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"memory: {options.days} days, {turns} turns of journal (written in {made:.1f} s, one commit)")
    print(f"medians over {options.runs} runs, each a fresh process (wall ms, CPU ms of it and its children):")
    for key in ("persist", "persist_no_n1", "subconscious", "persist_no_commit", "surface", "git_commit",
                "git_commit_no_hooks", "cli_start"):
        print(f"  {key:26} {figures[key + '_ms']:8.1f} {figures['cpu_ms'][key]:8.1f}")
    print(f"  persist / git commit       {figures['persist_over_git_commit']:8.2f}")
    print(f"  surface / git commit       {figures['surface_over_git_commit']:8.2f}")


if __name__ == "__main__":
    main()
