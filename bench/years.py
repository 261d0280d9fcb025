"""What moving memories into their year folders costs: `doctor --fix` on a memory written flat.

    python bench/years.py                  # one year (~2,900 memories)
    python bench/years.py --years 3

Builds the generated memory of bench/generate.py as versions before year folders wrote it
(every memory in memories/ itself), then runs the migration `doctor --fix` runs first
(care/years.py): the refactor commits, each judged by the laws in-process as the CLI
judges them, and the fix commit for the links. Reports its wall and CPU time (this process
and its git children), the commits, and `verify` over the new commits (must be clean).
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import generate  # noqa: E402
from bench.common import table  # noqa: E402


def cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, default=1)
    args = parser.parse_args()
    from souveraine.care import years
    from souveraine.laws import inprocess
    from souveraine.laws.verify import verify
    from souveraine.store import layout
    from souveraine.store.memory import Memory

    with tempfile.TemporaryDirectory(prefix="bench-years-") as scratch:
        real = layout.memory_path
        layout.memory_path = lambda name: f"{layout.MEMORIES}/{name}"     # as older versions wrote
        try:
            built = generate.build(Path(scratch) / "memory", generate.Shape.years(args.years))
        finally:
            layout.memory_path = real
        memory = Memory(built.root)
        inprocess.enable()
        verify(memory)                                   # the record verify keeps, up to the migration
        head = memory.git("rev-parse", "HEAD").stdout.strip()
        flat = len(years.pending(memory))
        load = os.getloadavg()[0]
        started, used = time.perf_counter(), cpu()
        done = years.migrate(memory)
        wall, spent = time.perf_counter() - started, cpu() - used
        started = time.perf_counter()
        report = verify(memory)
        checked = time.perf_counter() - started
        commits = memory.git("rev-list", "--count", f"{head}..HEAD").stdout.strip()
        print(table([
            ["memories moved", f"{done['moved']:,} (of {flat:,} flat)"],
            ["links rewritten", f"{done['links']:,}"],
            ["commits", f"{commits} ({len(done['commits'])} refactor, {1 if done['fix_commit'] else 0} fix)"],
            ["migration, wall", f"{wall:.1f} s (load average {load:.1f})"],
            ["migration, CPU (with git)", f"{spent:.1f} s"],
            ["verify of the new commits", f"{checked:.2f} s, {len(report.breaches)} breaches"],
            ["left to move", f"{len(years.pending(memory))}"],
        ], ("figure", "value")))
        if report.breaches or years.pending(memory):
            raise SystemExit("bench: the migration left breaches or memories behind")


if __name__ == "__main__":
    main()
