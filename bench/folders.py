"""Do year folders pay? memories/ as one folder of 30,000 notes against memories/YYYY/.

    python bench/folders.py                  # ten years, 8 memories a day
    python bench/folders.py --years 1        # a quick look

Builds two histories with git fast-import, alike but for where each memory lives (one
commit a day adding --per-day notes, ~600 bytes each), then measures, side by side:

- the tree objects one more day's commit writes (bytes), and the repository's size
  after `git gc`;
- one more day's commit as the tool makes it (`update-index`, `write-tree`,
  `commit-tree`, `update-ref`), medians of --repeat;
- `git log --raw` over the whole history: the floor of `verify`, which reads every
  commit's changes;
- `git ls-files memories/` and a `git diff-tree` of the last commit.

Each figure is the median of runs taken in turn on both repositories.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import table  # noqa: E402

ENV = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
       "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@localhost", "GIT_CONFIG_NOSYSTEM": "1"}
START = date(2016, 12, 1)


def git(root: Path, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], input=input, env=ENV, capture_output=True,
                          check=True).stdout


def where(layout: str, day: date, n: int, extra: str = "") -> str:
    name = f"{day.isoformat()}-memory-{n:02d}{extra}.md"
    return f"memories/{day.year}/{name}" if layout == "years" else f"memories/{name}"


def note(day: date, n: int) -> bytes:
    words = " ".join(f"word{(day.toordinal() * 7 + n * 13 + i) % 997}" for i in range(60))
    return (f"---\ntier: episodic\ncreated: '{day.isoformat()}T09:00:00+00:00'\ndescription: memory {n} of {day}\n"
            f"---\n{words}\n").encode()


def build(root: Path, layout: str, days: int, per_day: int) -> None:
    git(root.parent, "init", "-q", "-b", "main", str(root))
    stream = bytearray()
    for d in range(days):
        day = START + timedelta(days=d)
        stream += f"commit refs/heads/main\ncommitter Bench <bench@localhost> {1480579200 + d * 86400} +0000\n".encode()
        message = f"chore(journal): {day}".encode()
        stream += b"data %d\n%s\n" % (len(message), message)
        for n in range(per_day):
            data = note(day, n)
            stream += f"M 100644 inline {where(layout, day, n)}\n".encode() + b"data %d\n%s\n" % (len(data), data)
    git(root, "fast-import", "--quiet", input=bytes(stream))
    git(root, "checkout", "-q", "main")


def one_day(root: Path, layout: str, day: date, k: int, per_day: int) -> tuple[float, int]:
    """(seconds, tree bytes written) of one more day's commit made by plumbing, as store.git makes it:
    ``per_day`` more memories of ``day`` (the history's last, so into its year's folder)."""
    paths = [where(layout, day, n, f"-more-{k}") for n in range(per_day)]
    for n, relpath in enumerate(paths):
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_bytes(note(day, n + 100 * k))
    started = time.perf_counter()
    git(root, "update-index", "--add", "--", *paths)
    tree = git(root, "write-tree").decode().strip()
    parent = git(root, "rev-parse", "HEAD").decode().strip()
    sha = git(root, "commit-tree", tree, "-p", parent, "-m", f"chore(journal): {day}").decode().strip()
    git(root, "update-ref", "HEAD", sha, parent)
    seconds = time.perf_counter() - started
    return seconds, _tree_bytes(root, parent, sha)


def _tree_bytes(root: Path, old: str, new: str) -> int:
    """The size of the tree objects the new commit holds that its parent did not."""
    trees = lambda c: dict(line.split(" ", 1) for line in git(root, "ls-tree", "-r", "-t", "--format=%(objectname) %(objecttype)", c)
                           .decode().splitlines() if line.endswith(" tree"))
    fresh = set(trees(new)) - set(trees(old)) | {git(root, "rev-parse", f"{new}^{{tree}}").decode().strip()}
    sizes = git(root, "cat-file", "--batch-check=%(objectsize)", input="".join(f"{t}\n" for t in fresh).encode())
    return sum(int(x) for x in sizes.split())


def timed(root: Path, *args: str) -> float:
    started = time.perf_counter()
    git(root, *args)
    return time.perf_counter() - started


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, default=10)
    parser.add_argument("--per-day", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    days = int(args.years * 365.25)
    layouts = ("flat", "years")
    with tempfile.TemporaryDirectory(prefix="souveraine-folders-") as tmp:
        roots = {layout: Path(tmp) / layout for layout in layouts}
        for layout, root in roots.items():
            started = time.perf_counter()
            build(root, layout, days, args.per_day)
            print(f"{layout}: {days} days built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        figures: dict[str, dict[str, list[float]]] = {layout: {} for layout in layouts}
        for k in range(args.repeat + 1):                       # the first round warms caches; dropped
            for layout, root in roots.items():
                seconds, written = one_day(root, layout, START + timedelta(days=days - 1), k, args.per_day)
                rows = {"one day's commit (plumbing)": seconds, "tree bytes one day's commit writes": written,
                        "git log --raw, whole history": timed(root, "log", "--raw", "--no-abbrev", "--format=%H", "HEAD"),
                        "git ls-files memories/": timed(root, "ls-files", "--", "memories/"),
                        "git diff-tree of the last commit": timed(root, "diff-tree", "-r", "--raw", "HEAD")}
                if k:
                    for name, value in rows.items():
                        figures[layout].setdefault(name, []).append(value)
        for layout, root in roots.items():
            git(root, "gc", "-q")
            figures[layout]["repository after git gc (bytes)"] = [du(root / ".git")]
    rows = []
    for name in figures["flat"]:
        flat, years = (statistics.median(figures[layout][name]) for layout in layouts)
        show = (lambda v: f"{v / 1e6:.2f} MB") if "bytes" in name else (lambda v: f"{v * 1000:.1f} ms")
        rows.append((name, show(flat), show(years), f"{years / flat:.2f}" if flat else "—"))
    print(f"{days} days, {days * args.per_day:,} memories, {args.repeat} runs each, load {os.getloadavg()[0]:.1f}")
    print(table(rows, ("figure", "one folder", "year folders", "years / flat")))


if __name__ == "__main__":
    main()
