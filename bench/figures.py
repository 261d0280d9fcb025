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
from dataclasses import dataclass, replace
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
    load: float = float("nan")     # the machine's 1-minute load average when it was measured
    cpu: float = float("nan")      # seconds of CPU (user + system, its child processes included)

    def row(self) -> tuple:
        ratio = self.median / self.floor if self.floor else float("nan")
        return (self.path, self.memory, _time(self.median), self.floor_name, _time(self.floor),
                f"{ratio:.2f}x" if ratio == ratio else "—",
                _time(self.median - self.floor), _time(self.cpu), f"{self.peak_mb:.0f}", f"{self.load:.1f}", self.target)


HEADERS = ("path", "memory", "median", "floor", "floor median", "ratio", "added", "CPU", "peak MiB", "load", "target")


@dataclass
class Spec:
    """One path to time on one memory: the command, its floor, and what readies each run."""
    name: str
    memory: str
    measured: Callable[[int], list[str]]
    floor_name: str
    floor: Callable[[int], list[str]]
    cwd: Path | None = None
    env: Callable[[int], dict] | None = None
    before: Callable[[int], None] | None = None
    repeat: int | None = None
    target: str = ""


# -- timing ----------------------------------------------------------------------------------


class Runner:
    """Runs commands in a sealed home, timing each and reading its peak memory."""

    def __init__(self, home: Path, repeat: int):
        self.repeat = repeat
        self.env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                    "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(home / ".config")}
        for name in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            self.env.pop(name, None)

    def once(self, argv: list[str], cwd: Path | None = None, env: dict | None = None) -> tuple[float, float, float]:
        """(seconds, peak MiB, CPU seconds) of one run; a failing command stops the bench with its words."""
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
        return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime

    def pair(self, name: str, memory: str, measured: Callable[[int], list[str]], floor_name: str,
             floor: Callable[[int], list[str]], **options) -> Figure:
        """The medians of ``measured(n)`` and ``floor(n)`` run in turn; ``before(n)`` (untimed) readies each run."""
        return self.side_by_side([Spec(name, memory, measured, floor_name, floor, **options)])[0]

    def side_by_side(self, specs: list[Spec]) -> list[Figure]:
        """One path on several memories, each round running every memory's command and floor in
        turn, so the machine's noise falls on all alike and their ratio holds."""
        rounds = 1 + max(s.repeat or self.repeat for s in specs)
        times: list[list[float]] = [[] for _ in specs]
        cpus: list[list[float]] = [[] for _ in specs]
        floors: list[list[float]] = [[] for _ in specs]
        peaks, failed, loads = [0.0] * len(specs), [""] * len(specs), []
        for n in range(rounds):
            for i, spec in enumerate(specs):
                if failed[i] or n > (spec.repeat or self.repeat):
                    continue
                try:
                    for argv, into in ((spec.measured, times[i]), (spec.floor, floors[i])):
                        k = 2 * n + (into is floors[i])
                        if spec.before:
                            spec.before(k)
                        seconds, mb, cpu = self.once(argv(k), cwd=spec.cwd, env=spec.env(k) if spec.env else None)
                        if n:               # the first round warms caches and is dropped
                            into.append(seconds)
                            cpus[i] += [cpu] if into is times[i] else []
                            peaks[i] = max(peaks[i], mb) if into is times[i] else peaks[i]
                except SystemExit as failure:   # one path failing leaves the others' figures standing
                    print(f"  {spec.name}, {spec.memory}: {failure}", file=sys.stderr)
                    failed[i] = str(failure)
            loads.append(os.getloadavg()[0])
        out = []
        for i, spec in enumerate(specs):
            if failed[i] or not times[i]:
                out.append(Figure(spec.name, spec.memory, float("nan"), spec.floor_name, float("nan"), 0.0,
                                  "FAILED (below)", failed[i] or "no run"))
                continue
            figure = Figure(spec.name, spec.memory, statistics.median(times[i]), spec.floor_name,
                            statistics.median(floors[i]), peaks[i], spec.target, load=statistics.median(loads),
                            cpu=statistics.median(cpus[i]))
            print(f"  {spec.name:<34} {spec.memory:>5} {_time(figure.median):>9}  (floor {_time(figure.floor)})",
                  file=sys.stderr)
            out.append(figure)
        return out


# -- the figures -----------------------------------------------------------------------------


def startup(run: Runner) -> list[Figure]:
    return [run.pair("CLI start-up (souveraine --version)", "—", lambda n: [*SOUVERAINE, "--version"],
                     "python -c pass", lambda n: [PYTHON, "-c", "pass"], target="adds < 150 ms")]


def on_memory(run: Runner, built: generate.Built, label: str, work: Path) -> list[Spec]:
    """Every path to time on one memory (a working copy of it), in the order they run."""
    root = generate.copy_of(built, work)
    end = date.fromisoformat(built.shape.end)
    now = datetime.combine(end + timedelta(days=1), datetime.min.time(), timezone.utc) + timedelta(hours=9)
    at = lambda n: {"SOUVERAINE_MEMORY": str(root), "SOUVERAINE_NOW": (now + timedelta(minutes=n)).isoformat()}
    cli = lambda *args: [*SOUVERAINE, *args]
    git = lambda *args: ["git", "-C", str(root), *args]
    note = "people/_index.md"
    slow = max(1, min(3, run.repeat))
    every_note = lambda n: _grep("-r", "-l", "-F", "[[", *SEARCHED)

    def append(n: int) -> None:
        with open(root / note, "a", encoding="utf-8") as handle:
            handle.write(f"- a line added by the bench, number {n}\n")

    specs = _rebuild(run, root, label, cli, at)   # first: the index every later figure keeps up to date
    specs += [
        Spec("hook-checked git commit", label,
             lambda n: git("commit", "-q", "-m", f"docs(people): bench line {n}", "--", note),
             "git commit --no-verify",
             lambda n: git("commit", "-q", "--no-verify", "-m", f"docs(people): bench line {n}", "--", note),
             before=append, target="adds < 100 ms"),
        Spec("persist per turn (with its commit)", label,
             lambda n: cli("persist", "--session", "bench", "--user", f"What about item {n} on the list?",
                           "--assistant", f"I'll follow up on item {n} tomorrow." if n % 4 == 0
                           else f"Item {n} is done; the answer is {n * 7}."),
             "python start + git commit (no hooks)",
             lambda n: ["sh", "-c", f"'{PYTHON}' -c pass && git -C '{root}' -c core.hooksPath=/dev/null commit -q "
                                    f"-m 'docs(people): bench line {n}' -- {note}"],
             env=at, before=lambda n: append(n) if n % 2 else None, target="< 150 ms"),
        Spec("surface", label, lambda n: cli("surface"), "python -c pass", lambda n: [PYTHON, "-c", "pass"],
             env=at, target="10 y / 1 y ≤ 1.2"),
    ]
    specs += _wake(label, cli, at)
    specs += _recall(run, root, label, cli, at, git)
    specs += [
        Spec("verify, whole history (--full)", label, lambda n: cli("verify", "--full"),
             "git log --raw (every commit's changes)",
             lambda n: git("log", "--raw", "--no-abbrev", "--format=%H %s", "HEAD"),
             env=at, repeat=slow, target="10,000 commits ≤ 10 s"),
        Spec("verify, ten new commits", label, lambda n: cli("verify"),
             "git log --raw (the ten commits)", lambda n: git("log", "--raw", "--no-abbrev", "--format=%H %s", "HEAD~10.."),
             env=at, before=lambda n: _ten_commits(run, root, n) if n % 2 == 0 else None, target="≤ 1 s"),
        Spec("verify --at HEAD (every witness)", label, lambda n: cli("verify", "--at", "HEAD"),
             "git grep -l (the witnessed candidates)",
             lambda n: _grep("-C", str(root), "grep", "-l", "-F", "-e", "foundational", "-e", "constitutive", "HEAD", "--",
                             "memories/*.md", program="git"),
             env=at, target="< 1 s at 10 years"),
        Spec("doctor", label, lambda n: cli("doctor"), "grep -r (every note)", every_note,
             cwd=root, env=at, repeat=slow, target="≤ 2 s at 1 year"),
        Spec("defrag --dry-run", label, lambda n: cli("defrag", "--dry-run"), "grep -r (every note)", every_note,
             cwd=root, env=at, repeat=slow, target="≤ 3 s at 1 year"),
    ]
    return specs


DENSE = "verify, 10k+ commits (--full)"


def dense(run: Runner, shape: generate.Shape, cache: Path, tmp: Path) -> tuple[Figure, str, int]:
    """verify --full on the largest memory committed three times a day: more than 10,000 commits."""
    built = generate.cached(replace(shape, commits_per_day=3), cache=cache,
                            progress=lambda n, total: print(f"  generating: {n}/{total} days", file=sys.stderr))
    work = tmp / "dense"
    work.mkdir()
    root = generate.copy_of(built, work)
    label = f"{shape.days / 365.25:.0f} y, 3 a day"
    print(DENSE, file=sys.stderr)
    figure = run.pair(DENSE, label, lambda n: [*SOUVERAINE, "verify", "--full"], "git log --raw (every commit's changes)",
                      lambda n: ["git", "-C", str(root), "log", "--raw", "--no-abbrev", "--format=%H %s", "HEAD"],
                      env=lambda n: {"SOUVERAINE_MEMORY": str(root)}, repeat=max(1, min(3, run.repeat)),
                      target="10,000 commits ≤ 10 s")
    commits = built.stats.get("commits", 3 * built.stats["days"] + 2)
    return figure, f"**{label}**: {describe(built, commits)}", commits


def _grep(*args: str, program: str = "grep") -> list[str]:
    """A grep as a floor: finding nothing (exit 1) is no failure."""
    return ["sh", "-c", '"$0" "$@"; [ $? -le 1 ]', program, *args]


def _ten_commits(run: Runner, root: Path, n: int) -> None:
    """Ten lawful commits made without hooks, so nothing has judged them before verify does."""
    day = root / "journal" / "bench-verify.md"
    for i in range(10):
        with open(day, "a", encoding="utf-8") as handle:
            handle.write(f"- line {i} of round {n}\n")
        subprocess.run(["git", "-C", str(root), "add", str(day)], check=True, env=run.env)
        subprocess.run(["git", "-C", str(root), "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m",
                        f"chore(journal): bench line {i} of round {n}"], check=True, env=run.env, capture_output=True)


def _wake(label: str, cli, at) -> list[Spec]:
    import importlib.util

    if importlib.util.find_spec("souveraine.cli.wake") is None:
        print("  wake: not on this branch yet; skipped", file=sys.stderr)
        return []
    return [Spec("wake", label, lambda n: cli("wake"), "python -c pass", lambda n: [PYTHON, "-c", "pass"],
                 env=at, target="< 300 ms at 10 years")]


def _rebuild(run: Runner, root: Path, label: str, cli, at) -> list[Spec]:
    grep = lambda n: _grep("-r", "-i", "-l", "-F", "zeppelin", *SEARCHED)
    return [Spec("full index rebuild", label, lambda n: cli("index", "--rebuild"), "grep -r (same folders)", grep,
                 cwd=root, env=at, repeat=max(1, min(3, run.repeat)))]


def _recall(run: Runner, root: Path, label: str, cli, at, git) -> list[Spec]:
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
        Spec("index update after one turn", label, lambda n: cli("index"), "python start + git status",
             lambda n: ["sh", "-c", f"'{PYTHON}' -c pass && git -C '{root}' status --porcelain"],
             env=at, before=lambda n: one_turn(n) if n % 2 == 0 else None, target="10 y / 1 y ≤ 1.2"),
        Spec("recall query", label, lambda n: cli("recall", QUERIES[n // 2 % len(QUERIES)]),
             "grep -r (same folders)",
             lambda n: _grep("-r", "-i", "-l", "-F", QUERIES[n // 2 % len(QUERIES)].split()[0], *SEARCHED),
             cwd=root, env=at, target="10 y / 1 y ≤ 1.2; ≤ 100 ms at 10 y"),
    ]


MCP_RECALL = "recall through the MCP server"


def through_mcp(run: Runner, memories: list[tuple[str, Path]]) -> list[Figure]:
    """A recall as an agent's MCP client pays for it: one long-lived server per memory, each
    call beside a ping through the same server (bench/mcp.py); CPU is the server's, per call."""
    from bench import mcp

    servers, figures = [], []
    try:
        for _, root in memories:
            servers.append(mcp.Server(root))
        found = mcp.measure(servers, QUERIES, run.repeat)
        for (label, _), server, f in zip(memories, servers, found):
            figures.append(Figure(MCP_RECALL, label, f["median"], "ping through the same server", f["floor"],
                                  server.peak_mb(), "≤ 20 ms at 10 y", load=f["load"], cpu=f["cpu"]))
            print(f"  {MCP_RECALL:<34} {label:>5} {_time(f['median']):>9}  (floor {_time(f['floor'])})", file=sys.stderr)
    except SystemExit as failure:
        print(f"  {MCP_RECALL}: {failure}", file=sys.stderr)
        figures = [Figure(MCP_RECALL, label, float("nan"), "", float("nan"), 0.0, "FAILED (below)", str(failure))
                   for label, _ in memories]
    finally:
        for server in servers:
            server.close()
    return figures


# What each target asks, judged on the figures of the first and last memories (1 y and 10 y).
GOALS: dict[str, Callable[[Figure, Figure, dict], bool]] = {
    "CLI start-up (souveraine --version)": lambda a, b, s: a.median - a.floor < 0.150,
    "hook-checked git commit": lambda a, b, s: max(a.median - a.floor, b.median - b.floor) < 0.100,
    "persist per turn (with its commit)": lambda a, b, s: max(a.median, b.median) < 0.150,
    "surface": lambda a, b, s: b.median / a.median <= 1.2,
    "wake": lambda a, b, s: b.median < 0.300,
    "index update after one turn": lambda a, b, s: b.median / a.median <= 1.2,
    "recall query": lambda a, b, s: b.median / a.median <= 1.2 and b.median <= 0.100,
    "recall through the MCP server": lambda a, b, s: b.median <= 0.020,
    "verify, whole history (--full)": lambda a, b, s: b.median * 10_000 / s["commits"] <= 10,
    "verify, 10k+ commits (--full)": lambda a, b, s: a.median * 10_000 / s["dense_commits"] <= 10,
    "verify, ten new commits": lambda a, b, s: max(a.median, b.median) <= 1,
    "verify --at HEAD (every witness)": lambda a, b, s: b.median < 1,
    "doctor": lambda a, b, s: a.median <= 2,
    "defrag --dry-run": lambda a, b, s: a.median <= 3,
}


FLOORED = {"CLI start-up (souveraine --version)", "hook-checked git commit"}   # targets on the time over a floor


def summary(figures: list[Figure], labels: list[str], stats: dict) -> str:
    """Each path at the first and last memory's age, their ratio, and whether its target is met —
    by the wall clock, and by CPU time (what a quiet machine's wall clock comes near)."""
    first, last = labels[0], labels[-1]
    by = {(f.path, f.memory): f for f in figures}
    on_cpu = lambda f: replace(f, median=f.cpu)
    rows = []
    for path in dict.fromkeys(f.path for f in figures):
        alone = next(f for f in figures if f.path == path)     # a path measured on one memory of its own
        a = by.get((path, first)) or by.get((path, "—")) or alone
        b = (by.get((path, last)) or by.get((path, "—")) or alone) if len(labels) > 1 else a
        twin = a is not b
        ratio = lambda x, y: f"{y / x:.2f}" if twin and x == x and y == y and x else "—"
        goal = GOALS.get(path)
        judge = lambda x, y: "—" if goal is None or x.failure or y.failure else ("yes" if goal(x, y, stats) else "**no**")
        rows.append((path, _time(a.median), _time(b.median) if twin else "—", ratio(a.median, b.median),
                     _time(a.cpu), _time(b.cpu) if twin else "—", ratio(a.cpu, b.cpu), a.target, judge(a, b),
                     "—" if path in FLOORED else judge(on_cpu(a), on_cpu(b))))
    if len(labels) == 1:
        return table([(r[0], r[1], r[4], r[7], r[8], r[9]) for r in rows],
                     ("path", first, f"{first} CPU", "target", "met?", "met on CPU?"))
    return table(rows, ("path", first, last, f"{last} / {first}", f"{first} CPU", f"{last} CPU",
                        f"{last} / {first} CPU", "target", "met?", "met on CPU?"))


# -- the report ------------------------------------------------------------------------------


def describe(built: generate.Built, commits: int | None = None) -> str:
    files = sum(1 for _ in built.root.rglob("*.md"))
    size = sum(p.stat().st_size for p in built.root.rglob("*.md")) / 1e6
    s = built.stats
    return (f"{s['days']:,} days: {s['turns']:,} turns, {s['memories']:,} memories ({s.get('elevated', 0):,} elevated), "
            f"{s['syntheses']:,} syntheses, {commits or s['days'] + 2:,} commits; {files:,} Markdown files, {size:.0f} MB")


def report(figures: list[Figure], memories: list[str], labels: list[str], stats: dict, options, seconds: float,
           loads: tuple[float, float]) -> str:
    kept = OUTPUT.read_text(encoding="utf-8").split(KEPT, 1)[1] if OUTPUT.exists() and KEPT in OUTPUT.read_text(encoding="utf-8") else "\n"
    machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"{subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}")
    return f"""# Performance

Generated by `bench/run{' --years ' + options.years if options.years != '1,10' else ''}` on {date.today()} \
({machine}); {options.repeat} runs each (3 for the rebuild, the whole-history verify, doctor and defrag),
medians, in {seconds / 60:.0f} min, the 1-minute load average {loads[0]:.1f} at the start and {loads[1]:.1f} at the end.
Every figure is the real command in a fresh process. The memories are measured **side by side**:
each round runs the path on every memory, each beside its **floor** — what the same job cannot
cost less than on this machine — so the machine's noise falls on all alike and the ratios hold
on a shared machine where the medians do not. *Load* is the machine's load average while the
path was measured (2 cores: above 2, other work was queued beside it). *CPU* is the median
CPU time the command used (user and system, its git processes included): what its wall
clock comes near on a quiet machine, and what a target is also judged on when the machine
was busy. *Peak MiB* is the measured process's peak resident memory.

The memories are generated by `bench/generate.py` (deterministic from a seed, cached under
`bench/.cache/`):

{chr(10).join(f'- {m}' for m in memories)}

{summary(figures, labels, stats)}

In full, each beside its floor:

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
- **recall through the MCP server**: one `souveraine mcp` per memory, kept running, asked
  `tools/call recall` with the same words over its stdio JSON-RPC (bench/mcp.py), each call beside
  a `ping` to the same server; CPU is the server's, per call (a mean: the kernel counts it in ticks).
- **verify, whole history**: `souveraine verify --full` over every commit (one a day), against
  `git log --raw`, which lists the same commits' changes without judging them. Its target is
  judged as a rate: the 10-year figure scaled to 10,000 commits.
- **verify, 10k+ commits**: the same on the ten years committed as a day goes (three commits a
  day, the journal growing through the first two): a real history of more than 10,000 commits,
  its target judged on the figure scaled to exactly 10,000.
- **verify, ten new commits**: ten lawful commits made without hooks, then `souveraine verify`,
  which judges only the commits since its record; against `git log --raw` of those ten.
- **verify --at HEAD**: every witness as it stands at HEAD (signatures, covenants, identities),
  against the `git grep` that lists its candidates.
- **doctor** and **defrag --dry-run**: the audit and the plan, changing nothing, against a
  `grep -r` that reads every note.
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
    parser.add_argument("--output", type=Path, help=f"where the report goes (default {OUTPUT.relative_to(ROOT)}; none with --quick or --only)")
    parser.add_argument("--only", help="time only the paths whose names hold one of these words (comma-separated)")
    options = parser.parse_args(argv)
    options.repeat = options.repeat or (2 if options.quick else 10)
    shapes = ([("10 days", generate.Shape(days=10, memories_per_day=4, people=12))] if options.quick else
              [(f"{y} y", generate.Shape.years(float(y))) for y in options.years.split(",")])
    compileall.compile_dir(str(ROOT / "souveraine"), quiet=1)
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    figures, described, labels, stats = [], [], [], {}
    wanted = lambda name: not options.only or any(w.strip() in name for w in options.only.split(","))
    with tempfile.TemporaryDirectory(prefix="souveraine-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@localhost\n[init]\n\tdefaultBranch = main\n")
        run = Runner(home, options.repeat)
        os.environ.update({k: run.env[k] for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "XDG_CONFIG_HOME")})
        if wanted("CLI start-up (souveraine --version)"):
            print("start-up", file=sys.stderr)
            figures += startup(run)
        paths = []
        for label, shape in shapes:
            print(f"memory of {label}: copying", file=sys.stderr)
            built = generate.cached(shape, cache=options.cache, progress=lambda n, total: print(f"  generating: {n}/{total} days", file=sys.stderr))
            described.append(f"**{label}**: {describe(built)}")
            labels.append(label)
            stats = {**built.stats, "commits": built.stats["days"] + 2}
            work = Path(tmp) / label.replace(" ", "")
            work.mkdir()
            paths.append(on_memory(run, built, label, work))
        for specs in zip(*paths):          # one path at a time, on every memory side by side
            if wanted(specs[0].name):
                print(specs[0].name, file=sys.stderr)
                figures += run.side_by_side(list(specs))
        if not options.quick and wanted(DENSE):
            figure, memory, commits = dense(run, shapes[-1][1], options.cache, Path(tmp))
            figures.append(figure)
            described.append(memory)
            stats["dense_commits"] = commits
        if wanted(MCP_RECALL):
            print(MCP_RECALL, file=sys.stderr)
            figures += through_mcp(run, [(label, Path(tmp) / label.replace(" ", "") / "memory") for label in labels])
    seconds = time.perf_counter() - started
    loads = (load_before, os.getloadavg()[0])
    print(summary(figures, labels, stats))
    print(table([f.row() for f in figures], HEADERS))
    for figure in figures:
        if figure.failure:
            print(f"{figure.path}, {figure.memory}: {figure.failure}")
    output = options.output or (None if options.quick or options.only else OUTPUT)
    if output:
        output.write_text(report(figures, described, labels, stats, options, seconds, loads), encoding="utf-8")
        print(f"wrote {output}", file=sys.stderr)
