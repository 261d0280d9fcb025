"""What the laws cost: a commit with the hooks against the same commit without, and `verify`.

    python bench/hooks.py                      # 10,000 files, 1,000 commits to verify
    python bench/hooks.py --commits 10000      # the issue's target: verify 10,000 commits

1. On a memory of --files files, append one line to a journal day and `git commit` it,
   alternately with the hooks and with `--no-verify` (which still runs post-commit),
   --runs times each; also with no hooks at all (core.hooksPath=/dev/null), the floor.
   Prints medians, the ratio, and the milliseconds the laws add. Target: < 100 ms added.
2. Builds --commits commits with git fast-import (journal turns, a memory every tenth
   commit) and times `verify` over them. Target: 10,000 commits in < 10 s.

Bytecode is compiled first, as an installed package has it.
"""

import argparse
import compileall
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from souveraine.bootstrap import init  # noqa: E402
from souveraine.laws.verify import verify  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

AUTHOR = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
          "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
DAY = "journal/2026/03/2026-03-02.md"


def git(root: Path, *args: str, input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, **AUTHOR}
    return subprocess.run(["git", "-C", str(root), *args], input=input, capture_output=True, env=env, check=check)


def memory_of(root: Path, files: int) -> Path:
    """A memory holding ``files`` notes (memories, people, journal days), committed."""
    init(root)
    for i in range(files):
        folder = ("memories", "people", "domains", "reference/work")[i % 4]
        path = root / folder / f"note-{i:05d}.md"
        path.write_text(f"---\ndescription: note {i}\ntags:\n  - bench\n---\nNote number {i}, with a line of text.\n")
    (root / DAY).parent.mkdir(parents=True, exist_ok=True)
    (root / DAY).write_text("---\ntype: journal\ndate: 2026-03-02\n---\n# Monday 2 March 2026\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "feat(memory): bench notes")
    return root


VARIANTS = {  # name: (git options, commit options)
    "hooks": ((), ()),
    "--no-verify (post-commit only)": ((), ("--no-verify",)),
    "no hooks at all": (("-c", "core.hooksPath=/dev/null"), ()),
}


def time_commit(root: Path, n: int, git_options: tuple[str, ...], commit_options: tuple[str, ...]) -> float:
    with open(root / DAY, "a") as handle:
        handle.write(f"\n## 10:{n // 60 % 60:02d}:{n % 60:02d} · user\n\nTurn {n}.\n")
    git(root, "add", DAY)
    start = time.perf_counter()
    done = git(root, *git_options, "commit", "-q", *commit_options, "-m", f"chore(journal): turn {n}", check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench: the commit failed: {done.stderr.decode()}")
    return elapsed


def bench_commit(files: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = memory_of(Path(tmp) / "memory", files)
        times: dict[str, list[float]] = {name: [] for name in VARIANTS}
        n = 0
        for _ in range(runs + 1):  # the first round warms the caches and is dropped
            for name, (git_options, commit_options) in VARIANTS.items():
                n += 1
                times[name].append(time_commit(root, n, git_options, commit_options))
        print(f"commit of a one-line journal append, memory of {files} files, {runs} runs (median, and best):")
        for label, pick in (("median", statistics.median), ("best", min)):
            hooks, skipped, floor = (pick(values[1:]) * 1000 for values in times.values())
            print(f"  {label}: hooks {hooks:.1f} ms, --no-verify (post-commit only) {skipped:.1f} ms, no hooks {floor:.1f} ms")
            print(f"    hooks / --no-verify {hooks / skipped:.2f}x: {hooks - skipped:.1f} ms added by pre-commit + commit-msg")
            print(f"    hooks / no hooks    {hooks / floor:.2f}x: {hooks - floor:.1f} ms added by all three hooks")
        print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores while measuring)")


def history_of(root: Path, commits: int) -> Path:
    """A memory with ``commits`` more commits, written by git fast-import in one go."""
    init(root)
    parent = git(root, "rev-parse", "HEAD").stdout.decode().strip()
    stream, day_text, stamp = [], "", 1_772_000_000
    for i in range(commits):
        day = i // 20
        date = datetime.date(2025, 1, 1) + datetime.timedelta(days=day)
        path = f"journal/{date:%Y/%m/%Y-%m-%d}.md"
        if i % 20 == 0:
            day_text = f"---\ntype: journal\ndescription: day {day}\n---\n# Day {day}\n"
        day_text += f"\n## 09:{i % 60:02d}:00 · user · session `b`\n\nTurn {i}: something said and kept.\n\n^t09{i % 60:02d}00u{i:04x}\n"
        files = [(path, day_text)]
        message = f"chore(journal): turn {i}"
        if i % 10 == 9:
            files.append((f"memories/2026-01-01-bench-{i:08x}.md",
                          f"---\nid: {i}\ntier: episodic\ndescription: memory {i}\ntags:\n  - memory\n---\nMemory {i}.\n"))
            message = f"feat(memory): remember {i}"
        stream.append(_fast_commit(message, stamp + i, files, parent if i == 0 else None))
    git(root, "fast-import", "--quiet", "--force", input=b"".join(stream))
    git(root, "reset", "-q", "--hard")
    return root


def _fast_commit(message: str, when: int, files: list[tuple[str, str]], parent: str | None) -> bytes:
    body = message.encode()
    out = [b"commit refs/heads/main\n", f"committer Bench <bench@localhost> {when} +0000\n".encode(),
           f"data {len(body)}\n".encode(), body, b"\n"]
    if parent:
        out.append(f"from {parent}\n".encode())
    for path, text in files:
        data = text.encode()
        out += [f"M 100644 inline {path}\n".encode(), f"data {len(data)}\n".encode(), data, b"\n"]
    return b"".join(out)


def bench_verify(commits: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(history_of(Path(tmp) / "history", commits))
        start, cpu = time.perf_counter(), _cpu()
        report = verify(memory, full=True)
        elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
        if report.breaches:
            sys.exit(f"bench: verify found breaches in a clean history: {report.breaches[:3]}")
        print(f"verify over {report.commits} commits: {elapsed:.2f} s ({report.commits / elapsed:,.0f} commits/s), "
              f"{cpu:.2f} s of CPU with its git processes (load average {os.getloadavg()[0]:.1f})")


def _cpu() -> float:
    """CPU seconds used so far by this process and the processes it waited for (git)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000, help="files in the memory the commit is timed on")
    parser.add_argument("--runs", type=int, default=15, help="timed commits per variant")
    parser.add_argument("--commits", type=int, default=1_000, help="commits for verify (10000 for the issue's target)")
    parser.add_argument("--verify-only", action="store_true", help="time verify alone, not the commit")
    args = parser.parse_args()
    compileall.compile_dir(str(HERE / "souveraine"), quiet=1)
    with tempfile.TemporaryDirectory() as home:
        os.environ.update({"HOME": home, "GIT_CONFIG_GLOBAL": os.path.join(home, ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"})
        os.environ.pop("SOUVERAINE_MEMORY", None)
        Path(home, ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@localhost\n[init]\n\tdefaultBranch = main\n")
        if not args.verify_only:
            bench_commit(args.files, args.runs)
        bench_verify(args.commits)


if __name__ == "__main__":
    main()
