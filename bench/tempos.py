"""The slower tempos on a small and a large memory: reflect, archive and pressure must cost
what their window costs, not what the whole journal weighs.

Usage: python bench/tempos.py [--days N] [--repeat N]
Target: each operation on the large memory within 2x of the same on the small one.
"""

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ms, table  # noqa: E402

WORDS = ("the ledger", "Marguerite", "the orchard lease", "SQLite", "the garden", "Quimper", "a promise")


def talk(memory, day: date, turns: int, change=None) -> None:
    """``turns`` turns on ``day``, appended to its journal file and committed."""
    from souveraine.store import journal

    if change is None:
        with memory.change("chore(journal): turns") as own:
            return talk(memory, day, turns, own)
    relpath = journal.day_path(day)
    text = "" if memory.exists(relpath) else journal.header(day)
    at = datetime(day.year, day.month, day.day, 9 if text else 10)
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        words = f"Turn {i} of {day} about {WORDS[(day.toordinal() + i) % len(WORDS)]}: we keep going, as agreed."
        text += journal.render(at, role, words, "s", journal.block_id(at, role, words, "s", set()) + f"x{i}")
        at += timedelta(minutes=1)
    change.append(relpath, text)


def build(root: Path, days: int):
    """A memory with ``days`` days of 40 turns each."""
    from souveraine.bootstrap import init
    from souveraine.store.memory import Memory

    memory = Memory(init(root, identity="bench").root)
    start = date(2026, 12, 1) - timedelta(days=days)
    with memory.change("chore(journal): history") as change:
        for n in range(days):
            talk(memory, start + timedelta(days=n), 40, change)
    return memory


def timed(fn, repeat: int) -> float:
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def measure(memory, repeat: int) -> dict[str, float]:
    from souveraine.tempos import archive, pressure, reflect, vocabulary

    reflect.run(memory, force=True)   # a witness and a warm vocabulary cache
    archive.run(memory, force=True)   # a synthesis
    talk(memory, date(2026, 12, 1), 30)
    turns, last = reflect.window(memory)
    spoken = [t for t in turns if t.role in reflect.SPOKEN]
    limits = memory.config.model()
    return {
        "pressure.measure": timed(lambda: pressure.measure(memory), repeat),
        "reflect: window + vocabulary + witness": timed(
            lambda: reflect.witness(spoken, vocabulary.held_before(memory, last)), repeat),
        "archive: compose the synthesis": timed(lambda: archive.compose(memory, limits), repeat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = measure(build(Path(tmp) / "small", 3), args.repeat)
        large = measure(build(Path(tmp) / "large", args.days), args.repeat)
    rows = [(name, ms(small[name]), ms(large[name]), f"{large[name] / small[name]:.2f}x") for name in small]
    print(table(rows, ("operation", "3 days", f"{args.days} days", "ratio")))


if __name__ == "__main__":
    main()
