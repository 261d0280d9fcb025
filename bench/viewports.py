"""What each bandwidth shows on a lived year: `wake`, `status` and `surface --peek` in bytes.

    python bench/viewports.py [--years 1]

On a copy of bench/generate.py's memory (cached), the three commands are run with the real
binary at high, medium, low and minimal, twice: as the year left it (idle, nothing queued),
and at work — a unit back from REVIEW once, a fork running and one returned, and a thought
of each urgency waiting. Printed: the bytes of each output, so a reader sees that whole
views differ (docs/VIEWPORTS.md), not a header's worth.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import SOUVERAINE, table  # noqa: E402
from bench.generate import Shape, cached, copy_of  # noqa: E402

BANDWIDTHS = ("high", "medium", "low", "minimal")
COMMANDS = {"wake": ("wake",), "status": ("status",), "surface": ("surface", "--peek")}
AT_WORK = (
    ("unit", "start", "login", "--goal", "Users sign in with a passkey."),
    ("unit", "phase", "ORIENT"),
    ("unit", "phase", "DEVELOP", "--output", "Read auth.py and the session store."),
    ("unit", "phase", "REVIEW", "--output", "Passkeys added.", "--files", "src/auth.py"),
    ("unit", "phase", "DEVELOP", "--output", "A test fails after midnight UTC."),
    ("fork", "start", "research", "--task", "compare the ranking formulas"),
    ("fork", "start", "drafts", "--task", "draft the release notes"),
    ("fork", "return", "drafts", "--summary", "notes drafted"),
    ("inbox", "add", "Tidy the notes folder", "--urgency", "low"),
    ("inbox", "add", "Reply to Bea about the release", "--urgency", "medium"),
    ("inbox", "add", "The deploy key expires Friday", "--urgency", "high"),
    ("inbox", "add", "The backup failed twice", "--urgency", "critical"),
)


def souveraine(root: Path, *args: str) -> bytes:
    done = subprocess.run([*SOUVERAINE, "--memory", str(root), *args], capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"bench: souveraine {' '.join(args)} failed: {done.stderr.decode().strip()}")
    return done.stdout


def sizes(root: Path) -> dict[str, dict[str, int]]:
    return {name: {b: len(souveraine(root, *args, "--bandwidth", b)) for b in BANDWIDTHS}
            for name, args in COMMANDS.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, default=1)
    args = parser.parse_args()
    built = cached(Shape.years(args.years))
    with tempfile.TemporaryDirectory(prefix="souveraine-viewports-") as scratch:
        root = copy_of(built, Path(scratch))
        idle = sizes(root)
        for step in AT_WORK:
            souveraine(root, *step)
        busy = sizes(root)
    rows = [(f"{name} ({state})", *(f"{view[name][b]:,}" for b in BANDWIDTHS))
            for state, view in (("idle", idle), ("at work", busy)) for name in COMMANDS]
    print(f"bytes on the {args.years:g}-year memory ({built.stats.get('days', '?')} days)\n")
    print(table(rows, ("command", *BANDWIDTHS)))


if __name__ == "__main__":
    main()
