"""CLI start-up: `souveraine status` on a fresh memory against `python -c pass` and `git status`.

Usage: python bench/startup.py [--repeat N]
Target: the CLI adds under 150 ms over the interpreter's own start.
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import SOUVERAINE, interleaved, ms, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    from souveraine.bootstrap import init

    with tempfile.TemporaryDirectory() as tmp:
        root = init(Path(tmp) / "memory", identity="bench").root
        medians = interleaved({
            "python -c pass": [sys.executable, "-c", "pass"],
            "git status": ["git", "-C", str(root), "status", "--short"],
            "souveraine --version": [*SOUVERAINE, "--version"],
            "souveraine status": [*SOUVERAINE, "--memory", str(root), "status"],
        }, repeat=args.repeat)
    floor = medians["python -c pass"]
    rows = [(name, ms(t), f"{t / floor:.1f}x", ms(t - floor)) for name, t in medians.items()]
    print(table(rows, ("command", "median", "vs python -c pass", "added")))


if __name__ == "__main__":
    main()
