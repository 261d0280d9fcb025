"""Speed of recall on synthetic memories of 1 and 10 years.

    python bench/recall.py [--years 1,10] [--turns-per-day 40] [--json]

For each size: a full rebuild (MB/s) beside `grep -r` over the same files in the same run,
the incremental update after one new turn (what a recall or the post-commit hook pays after
persist), and query times (the whole recall() call, freshness check included, and the SQL
alone). The memories are written once — journal day files through store.journal, memory
files directly, one commit — and cached under bench/.cache keyed by their parameters;
each run works on a copy.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.conversations import Line, day_texts  # noqa: E402
from souveraine.recall import index, query, sources  # noqa: E402
from souveraine.recall.rank import Ranking  # noqa: E402
from souveraine.recall.search import Search, recall  # noqa: E402
from souveraine.store import git  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"
VERSION = 2              # bump when the generated memory changes shape
END = date(2026, 11, 30)
COMMON = ("the a and to of I you it is that in we for this on was with my but be have not are so just "
          "what about can do at if me like your all think there will one would get out know time").split()
NAMES = ["Clara", "Malik", "Ines", "Tomasz", "Yuki", "Ana", "Olu", "Sven", "Priya", "Luca", "Noor", "Jonas"]
QUERIES = [
    "book", "what did I say about that book in March", "kayak harbour", "Clara birthday present",
    "release planned", "thinking", "morning", "the budget spreadsheet last week", "since May garden",
    "2025-04 holiday", "zeppelin", "lantern orchard", "NEAR(\"quote\" *", "yesterday", "people",
    "tea rooibos genmaicha", "meeting roadmap argued", "dentist appointment", "Ines Lisbon", "recipe lentils curry",
]


def vocabulary(rng: random.Random, size: int = 30_000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "qu", "dor", "ni", "pa", "shi", "ber", "an", "el",
                 "um", "ro", "tes", "gar", "fin", "ol", "mar", "cre", "di", "us"]
    words = {"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size * 2)}
    real = ("book harbour kayak garden holiday budget spreadsheet recipe lentils curry tea rooibos genmaicha "
            "meeting roadmap dentist appointment release planned birthday present morning lantern orchard "
            "quote people thinking zeppelin").split()
    vocab = sorted(words)[: size - len(real)]
    rng.shuffle(vocab)
    for word in real:               # real words at everyday ranks, not at the head of the curve
        vocab.insert(rng.randint(30, 5000), word)
    return vocab


def sentence(rng: random.Random, vocab: list[str], weights: list[float]) -> str:
    words = []
    for _ in range(rng.randint(12, 80)):
        words.append(rng.choice(COMMON) if rng.random() < 0.45 else rng.choices(vocab, cum_weights=weights)[0])
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words)), rng.choice(NAMES))
    return " ".join(words).capitalize() + "."


def build(root: Path, years: int, turns_per_day: int, memories_per_week: int, seed: int) -> None:
    """A memory with ``years`` of journal and memories, in one commit."""
    from souveraine.bootstrap import init

    rng = random.Random(seed)
    vocab = vocabulary(rng)
    weights, total = [], 0.0
    for rank in range(1, len(vocab) + 1):      # Zipf: a few words common, most rare
        total += 1 / rank
        weights.append(total)
    memory = Memory(init(root, identity="bench").root)
    start = END - timedelta(days=365 * years)
    for offset in range((END - start).days):
        day = start + timedelta(days=offset)
        at = datetime.combine(day, datetime.min.time()) + timedelta(hours=8)
        lines = []
        for n in range(turns_per_day):
            at += timedelta(seconds=rng.randint(10, 900))
            lines.append(Line(at, "user" if n % 2 == 0 else "assistant", sentence(rng, vocab, weights), f"s{offset}"))
        texts, _ = day_texts(lines)
        for rel, text in texts.items():
            memory.path(rel).parent.mkdir(parents=True, exist_ok=True)
            memory.path(rel).write_text(text, encoding="utf-8")
        if day.weekday() < memories_per_week:
            body = sentence(rng, vocab, weights)
            tier = "foundational" if rng.random() < 0.05 else "episodic"
            memory.path(f"memories/{day}-m{offset:05d}-{offset:08x}.md").write_text(
                f"---\nid: 00000000-0000-4000-8000-{offset:012x}\ntier: {tier}\ncreated: {day}T20:00:00+00:00\n"
                f"identity_id: ''\nkey: ''\nvisibility: public\nsource: ''\ndescription: {body[:60]}\n"
                f"tags:\n  - memory\n  - {tier}\n---\n{body}\n", encoding="utf-8")
    git.commit(memory.root, ["journal", "memories"], f"chore(journal): {years} years of synthetic turns")


def cached(years: int, turns_per_day: int, memories_per_week: int, seed: int) -> Path:
    key = f"v{VERSION}-y{years}-t{turns_per_day}-m{memories_per_week}-s{seed}"
    root = CACHE / key / "memory"
    if not (root / "souveraine.toml").exists():
        shutil.rmtree(root.parent, ignore_errors=True)
        started = time.perf_counter()
        build(root, years, turns_per_day, memories_per_week, seed)
        print(f"  built {key} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return root


def measure(root: Path, repeat: int) -> dict:
    memory = Memory(root)
    files = index.listed(root)
    size = sum((root / f).stat().st_size for f in files)
    rebuilds = [index.rebuild(memory) for _ in range(2)]
    rebuild = min(rebuilds, key=lambda u: u.seconds)
    grep = min(_grep(root) for _ in range(3))
    queries = _queries(memory, repeat)
    incremental = _incremental(memory, repeat)
    return {
        "files": len(files), "mb": round(size / 1e6, 1), "documents": rebuild.documents,
        "index_mb": round(index.location(memory).stat().st_size / 1e6, 1),
        "rebuild_s": round(rebuild.seconds, 2), "rebuild_mb_s": round(size / 1e6 / rebuild.seconds, 1),
        "grep_s": round(grep, 3), "grep_mb_s": round(size / 1e6 / grep, 1),
        **queries, **incremental,
    }


def _grep(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(["grep", "-r", "-i", "-l", "-F", "zeppelin", *sources.FOLDERS], cwd=root, capture_output=True)
    return time.perf_counter() - started


def _queries(memory: Memory, repeat: int) -> dict:
    whole, sql = [], []
    for text in QUERIES:
        recall(memory, text)                    # warm
        for _ in range(repeat):
            started = time.perf_counter()
            recall(memory, text)
            whole.append(time.perf_counter() - started)
    conn = index.connect(index.location(memory))
    ranking = Ranking(time.time())
    for text in QUERIES:
        search = Search(query.terms(text), None, (["d.visibility != 'private'"], {}), ranking, 10)
        for _ in range(repeat):
            started = time.perf_counter()
            search.run(conn)
            sql.append(time.perf_counter() - started)
    conn.close()
    return {"query_ms_median": _ms(statistics.median(whole)), "query_ms_p95": _ms(_p95(whole)),
            "query_ms_max": _ms(max(whole)),
            "sql_ms_median": _ms(statistics.median(sql)), "sql_ms_p95": _ms(_p95(sql))}


def _incremental(memory: Memory, repeat: int) -> dict:
    """One new turn, committed as persist does, then the update a recall or the hook makes."""
    times, fresh = [], []
    for n in range(repeat):
        at = datetime.combine(END, datetime.min.time()) + timedelta(hours=23, seconds=n)
        rel = f"journal/{END:%Y/%m/%Y-%m-%d}.md"
        texts, _ = day_texts([Line(at, "user", f"one more turn about zeppelins number {n}", "bench")],
                             {rel: memory.read_text(rel)} if memory.exists(rel) else {})
        with memory.change("chore(journal): one more turn") as change:
            change.write(rel, texts[rel])
        started = time.perf_counter()
        update = index.refresh(memory)
        times.append(time.perf_counter() - started)
        assert update.mode == "incremental" and update.files == 1, update
        started = time.perf_counter()
        index.refresh(memory)
        fresh.append(time.perf_counter() - started)
    return {"incremental_ms_median": _ms(statistics.median(times)), "incremental_ms_max": _ms(max(times)),
            "fresh_check_ms_median": _ms(statistics.median(fresh))}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", default="1,10", help="comma-separated sizes in years")
    parser.add_argument("--turns-per-day", type=int, default=40)
    parser.add_argument("--memories-per-week", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ["SOUVERAINE_NOW"] = f"{END.isoformat()}T23:30:00+00:00"
    results = {}
    for years in (int(y) for y in args.years.split(",")):
        source = cached(years, args.turns_per_day, args.memories_per_week, args.seed)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "memory"
            shutil.copytree(source, root, symlinks=True)
            git.run(root, "update-index", "-q", "--refresh", check=False)   # a copy's stat data is stale
            results[f"{years}y"] = measure(root, args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.turns_per_day} turns a day, {args.memories_per_week} memories a week; machine: {os.cpu_count()} cores\n")
    for name, r in results.items():
        print(f"{name}: {r['files']} files, {r['mb']} MB, {r['documents']} documents, index {r['index_mb']} MB")
        print(f"  full rebuild   {r['rebuild_s']:>7.2f} s  {r['rebuild_mb_s']:>7.1f} MB/s")
        print(f"  grep -r        {r['grep_s']:>7.3f} s  {r['grep_mb_s']:>7.1f} MB/s (same files, same run)")
        print(f"  one new turn   {r['incremental_ms_median']:>7.1f} ms median, {r['incremental_ms_max']} ms max"
              f"  (nothing new: {r['fresh_check_ms_median']} ms)")
        print(f"  query          {r['query_ms_median']:>7.1f} ms median, {r['query_ms_p95']} ms p95, {r['query_ms_max']} ms max"
              f"  (SQL alone: {r['sql_ms_median']} ms median, {r['sql_ms_p95']} ms p95)")


if __name__ == "__main__":
    main()
