"""What every benchmark shares: timing commands side by side, medians, peak memory, tables."""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
SOUVERAINE = [sys.executable, str(ROOT / "bin" / "souveraine")]
HALVES = ("dev", "held-out")


def run_once(argv: list[str], cwd: Path | None = None, env: dict | None = None, input: str | None = None) -> float:
    """Wall time of one run of a command, in seconds; fails loudly if the command fails."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})}, input=input,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} failed: {done.stderr.strip() or done.stdout.strip()}")
    return elapsed


def median_of(argv, repeat: int = 15, warmup: int = 2, **kwargs) -> float:
    for _ in range(warmup):
        run_once(argv, **kwargs)
    return statistics.median(run_once(argv, **kwargs) for _ in range(repeat))


def interleaved(commands: dict[str, list[str]], repeat: int = 15, **kwargs) -> dict[str, float]:
    """Medians of several commands measured in turn, so machine noise falls on all alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():
        run_once(argv, **kwargs)
    for _ in range(repeat):
        for name, argv in commands.items():
            times[name].append(run_once(argv, **kwargs))
    return {name: statistics.median(values) for name, values in times.items()}


def peak_rss_mb() -> float:
    """Peak resident memory of the child processes run so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def table(rows: list[tuple], headers: tuple) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def halves_main(doc: str, measure, report, errors_help: str = "print the development half's errors") -> None:
    """A labelled set's command line: measure one half or both; errors are shown for dev only."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--show-errors", action="store_true", help=errors_help)
    args = parser.parse_args()
    for half in HALVES if args.half == "both" else (args.half,):
        report(half, measure(half), args.show_errors and half == "dev")
