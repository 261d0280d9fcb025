"""Speed of wake on synthetic memories of 1 and 10 years: its cost must not grow with them.

    python bench/wake.py [--years 1,10] [--memories-per-year 5000] [--repeat 15]

Each memory has ``years`` × 365 journal days (written through store.journal), about 5,000
memory files a year (new_note + notes.dumps; 5% private), an inner voice of 10 lines a day,
an identity shaped by 12 foundational and 4 constitutive memories (elevated through the
real API, witnessed by an outsider's key), a synthesis and an inbox. Written once, in a few
commits, and cached under bench/.cache keyed by the parameters.

Printed: `souveraine wake` (the real binary) beside `python -c pass` and `souveraine
--version` in the same run, medians interleaved; the library call alone; the first wake
after the catalog cache is gone (its rebuild) and after one new memory (its incremental
update); and the ratio 10 years / 1 year.
"""

import argparse
import random
import shutil
import statistics
import sys
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CACHE, SOUVERAINE, interleaved, ms, table  # noqa: E402
from souveraine.store import git, journal, notes  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

VERSION = 1                 # bump when the generated memory changes shape
END = date(2026, 11, 30)
WORDS = ("morning release index garden tea budget harbour book review test build commit promise "
         "friend lantern orchard kayak recipe deploy meeting lesson patience question answer").split()
WITNESS_SEED = bytes(range(1, 33))


def say(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def build(root: Path, years: int, per_year: int, seed: int) -> None:
    from souveraine.bootstrap import init

    rng = random.Random(seed)
    memory = Memory(init(root, identity="bench").root)
    start = END - timedelta(days=365 * years)
    days = (END - start).days
    voice = []
    for offset in range(days):
        day = start + timedelta(days=offset)
        _journal_day(memory, day, rng)
        voice += [f"[{day} {9 + n:02d}:00] [URGENCY: {rng.choice(('low', 'low', 'medium', 'high'))}] — {say(rng, 8)}"
                  for n in range(10)]
    total = per_year * years
    for n in range(total):
        day = start + timedelta(days=n * days // total)
        created = datetime.combine(day, datetime.min.time(), timezone.utc) + timedelta(minutes=n % 1440)
        relpath, note = _note(rng, created, n)
        memory.path(relpath).write_text(notes.dumps(note), encoding="utf-8")   # a cache: no fsync per file
    path = memory.path("system/metacognition/subconscious.md")
    path.write_text(path.read_text(encoding="utf-8") + "\n".join(voice) + "\n", encoding="utf-8")
    git.commit(memory.root, ["journal", "memories", "system/metacognition/subconscious.md"],
               f"chore(journal): {years} years of synthetic memory")
    _shape(memory, rng, start)
    _extras(memory, rng)


def _journal_day(memory: Memory, day: date, rng: random.Random) -> None:
    at = datetime.combine(day, datetime.min.time()) + timedelta(hours=9)
    text, taken = journal.header(day), set()
    for n in range(4):
        at += timedelta(minutes=rng.randint(1, 90))
        role, words = ("user", "assistant")[n % 2], say(rng, 30)
        block = journal.block_id(at, role, words, "s", taken)
        taken.add(block)
        text += journal.render(at, role, words, "s", block)
    path = memory.path(journal.day_path(day))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _note(rng: random.Random, created: datetime, n: int):
    from souveraine.identity import memories

    visibility = "private" if rng.random() < 0.05 else "public"
    return memories.new_note(say(rng, rng.randint(10, 60)), visibility=visibility, created=created,
                             memory_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)))


def _shape(memory: Memory, rng: random.Random, start: date) -> None:
    """An identity shaped by 16 memories, elevated through the real API."""
    from souveraine.identity import covenants, elevation, keys, memories, witness

    outsider = keys.Keypair(WITNESS_SEED)
    covenants.add(memory, did=outsider.did, keys={outsider.key_id: outsider.public},
                  project_id=str(uuid.UUID(int=7)), handle="wit")
    for n in range(16):
        tier = "constitutive" if n % 4 == 0 else "foundational"
        created = datetime.combine(start + timedelta(days=20 * n + 3), datetime.min.time(), timezone.utc)
        made = memories.remember(memory, say(rng, 40), identity="bench", created=created)
        note = memories.load(memory, made["id"])[1]
        signed = [witness.make(outsider, made["id"], tier, note["content_sha256"])] if tier == "constitutive" else []
        elevation.elevate(memory, made["id"], tier, attestations=signed,
                          patch={"walls_add": [say(rng, 6)], "register_append": say(rng, 5)})


def _extras(memory: Memory, rng: random.Random) -> None:
    with memory.change("chore(memory): a synthesis and an inbox for the bench") as change:
        change.write("system/synthesized/synthesis.md",
                     f"---\ntype: synthesis\nthrough: {END}\ndescription: The essence.\n---\n# Synthesis\n\n## Essence\n\n"
                     + "".join(f"- {say(rng, 14)}\n" for _ in range(30)))
        change.write("inbox/pending.md", memory.read_text("inbox/pending.md").rstrip("\n") + "\n\n" + "".join(
            f"- [{END} 10:{n:02d}] [URGENCY: {('low', 'medium', 'high')[n % 3]}] {say(rng, 8)} ^i{n:06x}\n" for n in range(12)))


def cached(years: int, per_year: int, seed: int) -> Path:
    key = f"wake-v{VERSION}-y{years}-m{per_year}-s{seed}"
    root = CACHE / key / "memory"
    if not (root / "souveraine.toml").exists() or not (root.parent / "complete").exists():
        shutil.rmtree(root.parent, ignore_errors=True)
        started = time.perf_counter()
        build(root, years, per_year, seed)
        (root.parent / "complete").write_text("ok\n")   # written last: a build cut short is built again
        print(f"  built {key} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return root


def library_ms(root: Path, repeat: int) -> float:
    from souveraine.wake import render, wake

    memory = Memory(root)
    render.markdown(wake(memory))
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        render.markdown(wake(Memory(root)))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def cache_cases(root: Path) -> dict[str, float]:
    """The first wake with no catalog cache (a full rebuild), then after one new memory (incremental)."""
    from souveraine.identity import memories
    from souveraine.identity import catalog
    from souveraine.wake import wake

    memory = Memory(root)
    (memory.cache / catalog.CACHE).unlink(missing_ok=True)
    started = time.perf_counter()
    wake(memory)
    cold = time.perf_counter() - started
    made = memories.remember(memory, "One more thing to remember for the bench.")
    started = time.perf_counter()
    wake(Memory(root))
    incremental = time.perf_counter() - started
    with memory.change("chore(memory): the bench's memory taken back") as change:
        change.delete(made["path"])
    wake(Memory(root))
    return {"cold": cold, "incremental": incremental}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", default="1,10", help="comma-separated sizes in years")
    parser.add_argument("--memories-per-year", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    from souveraine.laws import inprocess

    inprocess.enable()
    sizes = [int(y) for y in args.years.split(",")]
    roots = {y: cached(y, args.memories_per_year, args.seed) for y in sizes}
    commands = {"python -c pass": [sys.executable, "-c", "pass"], "souveraine --version": [*SOUVERAINE, "--version"]}
    commands |= {f"wake {y}y": [*SOUVERAINE, "--memory", str(roots[y]), "wake"] for y in sizes}
    medians = interleaved(commands, repeat=args.repeat)
    floor = medians["python -c pass"]
    rows = [(name, ms(t), f"{t / floor:.1f}x") for name, t in medians.items()]
    print(table(rows, ("command", "median", "vs python -c pass")))
    print()
    detail = []
    for y in sizes:
        memory = Memory(roots[y])
        files = sum(1 for p in (memory.root / "memories").rglob("*.md"))
        days = len(journal.days(memory.root))
        cases = cache_cases(roots[y])
        detail.append((f"{y}y", f"{days:,}", f"{files:,}", ms(library_ms(roots[y], args.repeat)),
                       ms(cases["cold"]), ms(cases["incremental"])))
    print(table(detail, ("memory", "journal days", "memories", "wake() in-process", "no catalog cache", "after one new memory")))
    if len(sizes) >= 2:
        small, large = min(sizes), max(sizes)
        ratio = medians[f"wake {large}y"] / medians[f"wake {small}y"]
        print(f"\nratio wake {large}y / {small}y: {ratio:.2f} (CLI medians {ms(medians[f'wake {large}y'])} / "
              f"{ms(medians[f'wake {small}y'])}; target: under 300 ms, ratio near 1)")


if __name__ == "__main__":
    main()
