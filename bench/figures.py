"""Every hot path's figure on generated memories, each beside the floor it cannot beat.

What `bench/run` runs. Every figure is the real command in a fresh process, as an agent's
hook or a person pays for it, timed alternately with its floor (so machine noise falls on
both alike); medians over --repeat runs after a warm-up, and the peak resident memory of
the measured process. The table goes to stdout and, unless --quick, to docs/PERFORMANCE.md.
"""

import argparse
import compileall
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from bench import generate
from bench.common import ROOT, SOUVERAINE, table

PYTHON = sys.executable
OUTPUT = ROOT / "docs" / "PERFORMANCE.md"
KEPT = "<!-- Below this line is written by hand and kept by bench/run. -->"
QUERIES = ["zeppelin", "kayak harbour", "Clara birthday present", "what did I say about the budget spreadsheet",
           "lentils curry recipe", "release planned since May", "morning meeting roadmap", "tea genmaicha"]
SEARCHED = ("journal", "memories", "people", "domains", "archive", "reference", "system")


@dataclass
class Figure:
    path: str
    memory: str
    median: float          # seconds
    floor_name: str
    floor: float           # seconds
    peak_mb: float
    target: str = ""
    failure: str = ""

    def row(self) -> tuple:
        ratio = self.median / self.floor if self.floor else float("nan")
        return (self.path, self.memory, _time(self.median), self.floor_name, _time(self.floor),
                f"{ratio:.2f}x" if ratio == ratio else "—",
                _time(self.median - self.floor), f"{self.peak_mb:.0f}", self.target)


HEADERS = ("path", "memory", "median", "floor", "floor median", "ratio", "added", "peak MiB", "target")


# -- timing ----------------------------------------------------------------------------------


class Runner:
    """Runs commands in a sealed home, timing each and reading its peak memory."""

    def __init__(self, home: Path, repeat: int):
        self.repeat = repeat
        self.env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                    "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(home / ".config")}
        for name in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            self.env.pop(name, None)

    def once(self, argv: list[str], cwd: Path | None = None, env: dict | None = None) -> tuple[float, float]:
        """(seconds, peak MiB) of one run; a failing command stops the bench with its words."""
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env={**self.env, **(env or {})}, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        error = child.stderr.read().decode(errors="replace")
        child.stderr.close()
        if child.returncode != 0:
            raise SystemExit(f"bench: {' '.join(map(str, argv))[:200]} failed (exit {child.returncode}): {error.strip()[-500:]}")
        return elapsed, usage.ru_maxrss / 1024

    def pair(self, name: str, memory: str, measured: Callable[[int], list[str]], floor_name: str,
             floor: Callable[[int], list[str]], *, cwd: Path | None = None, env: Callable[[int], dict] | None = None,
             before: Callable[[int], None] | None = None, repeat: int | None = None, target: str = "") -> Figure:
        """The medians of ``measured(n)`` and ``floor(n)`` run in turn; ``before(n)`` (untimed) readies each run."""
        try:
            return self._pair(name, memory, measured, floor_name, floor, cwd, env, before, repeat, target)
        except SystemExit as failed:            # one path failing leaves the others' figures standing
            print(f"  {name}: {failed}", file=sys.stderr)
            return Figure(name, memory, float("nan"), floor_name, float("nan"), 0.0, "FAILED (below)", str(failed))

    def _pair(self, name, memory, measured, floor_name, floor, cwd, env, before, repeat, target) -> Figure:
        times, floors, peak = [], [], 0.0
        for n in range(1 + (repeat or self.repeat)):
            for argv, into in ((measured, times), (floor, floors)):
                k = 2 * n + (into is floors)
                if before:
                    before(k)
                seconds, mb = self.once(argv(k), cwd=cwd, env=env(k) if env else None)
                if n:                       # the first round warms caches and is dropped
                    into.append(seconds)
                    peak = max(peak, mb) if into is times else peak
        figure = Figure(name, memory, statistics.median(times), floor_name, statistics.median(floors), peak, target)
        print(f"  {name:<34} {_time(figure.median):>9}  (floor {_time(figure.floor)})", file=sys.stderr)
        return figure


# -- the figures -----------------------------------------------------------------------------


def startup(run: Runner) -> list[Figure]:
    return [run.pair("CLI start-up (souveraine --version)", "—", lambda n: [*SOUVERAINE, "--version"],
                     "python -c pass", lambda n: [PYTHON, "-c", "pass"], target="adds < 150 ms")]


def on_memory(run: Runner, built: generate.Built, label: str, work: Path) -> list[Figure]:
    root = generate.copy_of(built, work)
    end = date.fromisoformat(built.shape.end)
    now = datetime.combine(end + timedelta(days=1), datetime.min.time(), timezone.utc) + timedelta(hours=9)
    at = lambda n: {"SOUVERAINE_MEMORY": str(root), "SOUVERAINE_NOW": (now + timedelta(minutes=n)).isoformat()}
    cli = lambda *args: [*SOUVERAINE, *args]
    git = lambda *args: ["git", "-C", str(root), *args]
    note = "people/_index.md"

    def append(n: int) -> None:
        with open(root / note, "a", encoding="utf-8") as handle:
            handle.write(f"- a line added by the bench, number {n}\n")

    figures = _rebuild(run, root, label, cli, at)   # first: the index every later figure keeps up to date
    figures += [
        run.pair("hook-checked git commit", label,
                 lambda n: git("commit", "-q", "-m", f"docs(people): bench line {n}", "--", note),
                 "git commit --no-verify",
                 lambda n: git("commit", "-q", "--no-verify", "-m", f"docs(people): bench line {n}", "--", note),
                 before=append, target="adds < 100 ms"),
        run.pair("persist per turn (with its commit)", label,
                 lambda n: cli("persist", "--session", "bench", "--user", f"What about item {n} on the list?",
                               "--assistant", f"I'll follow up on item {n} tomorrow." if n % 4 == 0
                               else f"Item {n} is done; the answer is {n * 7}."),
                 "python start + git commit (no hooks)",
                 lambda n: ["sh", "-c", f"'{PYTHON}' -c pass && git -C '{root}' -c core.hooksPath=/dev/null commit -q "
                                        f"-m 'docs(people): bench line {n}' -- {note}"],
                 env=at, before=lambda n: append(n) if n % 2 else None, target="< 150 ms"),
        run.pair("surface", label, lambda n: cli("surface"), "python -c pass", lambda n: [PYTHON, "-c", "pass"],
                 env=at, target="< 100 ms"),
    ]
    figures += _wake(run, label, cli, at)
    figures += _recall(run, root, label, cli, at, git)
    slow = max(1, min(3, run.repeat))
    figures.append(run.pair("verify over the history", label, lambda n: cli("verify"),
                            "git log --raw (every commit's changes)",
                            lambda n: git("log", "--raw", "--no-abbrev", "--format=%H %s", "HEAD"),
                            env=at, repeat=slow, target="10,000 commits < 10 s"))
    figures.append(run.pair("verify --at HEAD (every witness)", label, lambda n: cli("verify", "--at", "HEAD"),
                            "git grep -l (the witnessed candidates)",
                            lambda n: git("grep", "-l", "-F", "-e", "foundational", "-e", "constitutive", "HEAD",
                                          "--", "memories/*.md"),
                            env=at, target="< 1 s at 10 years"))
    return figures


def _wake(run: Runner, label: str, cli, at) -> list[Figure]:
    import importlib.util

    if importlib.util.find_spec("souveraine.cli.wake") is None:
        print("  wake: not on this branch yet; skipped", file=sys.stderr)
        return []
    return [run.pair("wake", label, lambda n: cli("wake"), "python -c pass", lambda n: [PYTHON, "-c", "pass"],
                     env=at, target="< 300 ms at 10 years")]


def _rebuild(run: Runner, root: Path, label: str, cli, at) -> list[Figure]:
    grep = lambda n: ["grep", "-r", "-i", "-l", "-F", "zeppelin", *SEARCHED]
    return [run.pair("full index rebuild", label, lambda n: cli("index", "--rebuild"), "grep -r (same folders)", grep,
                     cwd=root, env=at, repeat=max(1, min(3, run.repeat)))]


def _recall(run: Runner, root: Path, label: str, cli, at, git) -> list[Figure]:
    day = root / "journal" / "bench-turns.md"
    from souveraine.store import journal

    def one_turn(n: int) -> None:
        """A turn committed without hooks, so no post-commit work updates the index for it."""
        at_ = datetime(2027, 1, 1, 9, 0, n % 60)
        text = f"One more turn about zeppelins and the harbour, number {n}."
        with open(day, "a", encoding="utf-8") as handle:
            handle.write(journal.render(at_, "user", text, "bench", f"tbench{n:05d}"))
        subprocess.run(git("add", str(day)), check=True, env=run.env)
        subprocess.run(git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"chore(journal): bench turn {n}"),
                       check=True, env=run.env, capture_output=True)

    return [
        run.pair("index update after one turn", label, lambda n: cli("index"), "python start + git status",
                 lambda n: ["sh", "-c", f"'{PYTHON}' -c pass && git -C '{root}' status --porcelain"],
                 env=at, before=lambda n: one_turn(n) if n % 2 == 0 else None),
        run.pair("recall query", label, lambda n: cli("recall", QUERIES[n // 2 % len(QUERIES)]),
                 "grep -r (same folders)",
                 lambda n: ["grep", "-r", "-i", "-l", "-F", QUERIES[n // 2 % len(QUERIES)].split()[0], *SEARCHED],
                 cwd=root, env=at, target="< 100 ms"),
    ]


# -- the report ------------------------------------------------------------------------------


def describe(built: generate.Built) -> str:
    files = sum(1 for _ in built.root.rglob("*.md"))
    size = sum(p.stat().st_size for p in built.root.rglob("*.md")) / 1e6
    s = built.stats
    return (f"{s['days']:,} days: {s['turns']:,} turns, {s['memories']:,} memories ({s.get('elevated', 0):,} elevated), "
            f"{s['syntheses']:,} syntheses, {s['days'] + 2:,} commits; {files:,} Markdown files, {size:.0f} MB")


def report(figures: list[Figure], memories: list[str], options, seconds: float) -> str:
    kept = OUTPUT.read_text(encoding="utf-8").split(KEPT, 1)[1] if OUTPUT.exists() and KEPT in OUTPUT.read_text(encoding="utf-8") else "\n"
    machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"{subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}")
    return f"""# Performance

Generated by `bench/run{' --years ' + options.years if options.years != '1,10' else ''}` on {date.today()} \
({machine}); {options.repeat} runs each (3 for the rebuild and verify), medians, in {seconds / 60:.0f} min.
Every figure is the real command in a fresh process, timed alternately with its **floor** — what
the same job cannot cost less than on this machine — so the ratio is what to compare across
machines. *Peak MiB* is the measured process's peak resident memory.

The memories are generated by `bench/generate.py` (deterministic from a seed, cached under
`bench/.cache/`):

{chr(10).join(f'- {m}' for m in memories)}

{table([f.row() for f in figures], HEADERS)}
{"".join(f"{chr(10)}**{f.path}, {f.memory}, failed**: {f.failure.removeprefix('bench: ')}{chr(10)}" for f in figures if f.failure)}

How each is measured:

- **CLI start-up**: `souveraine --version` (click and the lazy command registry) against the bare interpreter.
- **hook-checked git commit**: a one-line append to a note committed by hand with `git commit`,
  which runs the memory's pre-commit, commit-msg and post-commit hooks, against `--no-verify`
  (which still runs post-commit).
- **persist per turn**: `souveraine persist --user … --assistant …`, journal, subconscious and
  commit included; the floor is the interpreter starting plus a `git commit` of a line with no
  hooks at all.
  Reflect runs inside a persist every 25 messages, so a few runs are slower; the median is the
  common turn.
- **surface**: `souveraine surface` after the persists above (so something may be pending).
- **wake**: `souveraine wake` (skipped, with a note on stderr, where the command is not there yet).
- **full index rebuild**: `souveraine index --rebuild` against `grep -r -i -l` over the same folders.
- **index update after one turn**: a turn committed without hooks, then `souveraine index`
  (the incremental update recall and the post-commit hook make).
- **recall query**: `souveraine recall WORDS` (the index fresh) against `grep -r -i -l` for the first word.
- **verify**: `souveraine verify` over every commit (one a day) against `git log --raw`, which
  lists the same commits' changes without judging them.
{KEPT}{kept}"""


def _time(seconds: float) -> str:
    if seconds != seconds:
        return "—"
    return f"{seconds * 1000:.0f} ms" if abs(seconds) < 10 else f"{seconds:.1f} s"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__.splitlines()[0])
    parser.add_argument("--years", default="1,10", help="sizes of the generated memories, in years (default 1,10)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: a 10-day memory, 2 runs each, nothing written")
    parser.add_argument("--repeat", type=int, help="timed runs per figure (default 10; 2 with --quick)")
    parser.add_argument("--cache", type=Path, default=generate.CACHE, help="where generated memories are kept")
    parser.add_argument("--output", type=Path, help=f"where the report goes (default {OUTPUT.relative_to(ROOT)}; none with --quick)")
    options = parser.parse_args(argv)
    options.repeat = options.repeat or (2 if options.quick else 10)
    shapes = ([("10 days", generate.Shape(days=10, memories_per_day=4, people=12))] if options.quick else
              [(f"{y} y", generate.Shape.years(float(y))) for y in options.years.split(",")])
    compileall.compile_dir(str(ROOT / "souveraine"), quiet=1)
    started = time.perf_counter()
    figures, described = [], []
    with tempfile.TemporaryDirectory(prefix="souveraine-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@localhost\n[init]\n\tdefaultBranch = main\n")
        run = Runner(home, options.repeat)
        os.environ.update({k: run.env[k] for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "XDG_CONFIG_HOME")})
        print("start-up", file=sys.stderr)
        figures += startup(run)
        for label, shape in shapes:
            print(f"memory of {label}", file=sys.stderr)
            built = generate.cached(shape, cache=options.cache, progress=lambda n, total: print(f"  generating: {n}/{total} days", file=sys.stderr))
            described.append(f"**{label}**: {describe(built)}")
            work = Path(tmp) / label.replace(" ", "")
            work.mkdir()
            figures += on_memory(run, built, label, work)
            shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - started
    print(table([f.row() for f in figures], HEADERS))
    for figure in figures:
        if figure.failure:
            print(f"{figure.path}, {figure.memory}: {figure.failure}")
    output = options.output or (None if options.quick else OUTPUT)
    if output:
        output.write_text(report(figures, described, options, seconds), encoding="utf-8")
        print(f"wrote {output}", file=sys.stderr)
