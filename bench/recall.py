"""Speed of recall on synthetic memories of 1 and 10 years.

    python bench/recall.py [--years 1,10] [--turns-per-day 40] [--json]
    python bench/recall.py --side-by-side [--repeat 9]
    python bench/recall.py --served [--years 1,10] [--vector-days 30] [--vectors] [--encoder static]
                           [--random-vectors] [--repeat 5] [--memory "LABEL=PATH" …]

``--side-by-side`` times what an agent pays, the memories of each size taken in turn within
each round so machine noise falls on both alike: ``souveraine recall WORDS`` in a fresh
process (beside ``python -c pass``), ``recall()`` in-process as the MCP server calls it, and
``souveraine index`` after one turn committed without hooks; medians and the 10 y / 1 y ratio.
``--served`` times ``souveraine recall WORDS`` answered by a warm recall server (``served``),
beside the same command in its own process, with each side's CPU, and a query after a pause
(the index's last scan of the work tree five minutes old).

For each size: a full rebuild (MB/s) beside `grep -r` over the same files in the same run,
the incremental update after one new turn (what a recall or the post-commit hook pays after
persist), and query times (the whole recall() call, freshness check included, and the SQL
alone). The memories are generated once — journal day files, memory
files, people, domains, syntheses, a commit a day — by bench/generate.py, cached under
bench/.cache keyed by their shape; each run works on a copy.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import generate  # noqa: E402
from bench.conversations import Line, day_texts  # noqa: E402
from souveraine.recall import index, query, sources  # noqa: E402
from souveraine.recall.rank import Ranking  # noqa: E402
from souveraine.recall.search import Search, recall  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

END = generate.END
QUERIES = [
    "book", "what did I say about that book in March", "kayak harbour", "Clara birthday present",
    "release planned", "thinking", "morning", "the budget spreadsheet last week", "since May garden",
    "2025-04 holiday", "zeppelin", "lantern orchard", "NEAR(\"quote\" *", "yesterday", "people",
    "tea rooibos genmaicha", "meeting roadmap argued", "dentist appointment", "Ines Lisbon", "recipe lentils curry",
]


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
    """One new turn, committed as persist does, then the update a recall or the hook makes
    (the post-commit hook, which would make it first, is kept out)."""
    os.environ.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "/dev/null"})
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


def side_by_side(roots: dict[str, Path], repeat: int) -> dict:
    """Medians per size of the CLI query, the in-process query and the update after one turn."""
    from bench.common import SOUVERAINE

    times: dict[str, dict[str, list[float]]] = {name: {} for name in roots}
    memories = {name: Memory(root) for name, root in roots.items()}
    for memory in memories.values():
        index.refresh(memory, scan=True)
        for text in QUERIES:
            recall(memory, text)                # warm: the page cache and the scan
    for n in range(repeat):
        for name, root in roots.items():
            memory, into = memories[name], times[name]
            env = {**os.environ, "SOUVERAINE_MEMORY": str(root)}
            for text in QUERIES[n % 4::4]:
                into.setdefault("cli", []).append(_timed([*SOUVERAINE, "recall", text], env))
                into.setdefault("floor", []).append(_timed([sys.executable, "-c", "pass"], env))
                started = time.perf_counter()
                recall(memory, text)
                into.setdefault("library", []).append(time.perf_counter() - started)
            _one_turn(memory, n)
            into.setdefault("update", []).append(_timed([*SOUVERAINE, "index"], env))
    out = {}
    for name, into in times.items():
        out[name] = {key: _ms(statistics.median(values)) for key, values in into.items()}
    first, last = list(out)[0], list(out)[-1]
    out["ratio"] = {key: round(out[last][key] / out[first][key], 2) for key in out[first]}
    return out


def served(roots: dict[str, Path], repeat: int, encoder: str = "auto") -> dict:
    """The CLI's recall through each memory's warm server (`souveraine serve`, started once and
    left to load the model and fill the vectors the memory lacks), beside the same command with
    the server out of the way (SOUVERAINE_NO_SERVER) and `python -c pass` (the floor), memories
    taken in turn each round. A memory named "…, vectors" is served with sentence vectors (its
    souveraine.toml says semantic = true), the others with `semantic = false`. Medians in ms;
    ``cli_cpu`` is the client process's own CPU and ``in_process_cpu`` the command's in its own
    process (medians), ``server_cpu`` the server's per query (a mean: its clock ticks are 10 ms).
    ``after_pause`` and ``after_pause_in_process``: a query once the index's last scan is as old
    as a pause of five minutes makes it — the server has scanned ahead (waited for here), the
    command in its own process scans then; ``after_pause_unscanned``: the same query served by
    a server that has not scanned ahead, as every server did before it could."""
    import compileall

    from bench.common import SOUVERAINE
    from souveraine.recall import server as recall_server
    from souveraine.recall import warm

    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "souveraine"), quiet=1)   # no start compiles

    base = {k: v for k, v in os.environ.items() if k not in ("SOUVERAINE_NOW", warm.OFF)}
    processes = {}
    for name, root in roots.items():
        _set_semantic(root, "vectors" in name, encoder)
        processes[name] = subprocess.Popen([*SOUVERAINE, "--memory", str(root), "serve", "--idle", "600"],
                                           env=base, stderr=subprocess.DEVNULL)
    times: dict[str, dict[str, list[float]]] = {name: {} for name in roots}
    loads: list[float] = []
    try:
        for name, root in roots.items():
            while (state := warm.talk(root, {"op": "ping"}, 5)) is None or state["filling"] or \
                    state["vectors"] == "loading":
                time.sleep(0.5)
            for text in QUERIES:                    # warm: the page cache, the vectors read once
                subprocess.run([*SOUVERAINE, "--memory", str(root), "recall", text], env=base, capture_output=True)
        for n in range(repeat):
            for name, root in roots.items():
                into, pid = times[name], processes[name].pid
                env = {**base, "SOUVERAINE_MEMORY": str(root)}
                for text in QUERIES[n % 4::4]:
                    before = _cpu(pid)
                    wall, cpu = _timed_cpu([*SOUVERAINE, "recall", text], env)
                    into.setdefault("served", []).append(wall)
                    into.setdefault("cli_cpu", []).append(cpu)
                    into.setdefault("server_cpu", []).append(_cpu(pid) - before)
                    wall, cpu = _timed_cpu([*SOUVERAINE, "recall", text], {**env, warm.OFF: "1"})
                    into.setdefault("in_process", []).append(wall)
                    into.setdefault("in_process_cpu", []).append(cpu)
                    into.setdefault("floor", []).append(_timed([sys.executable, "-c", "pass"], env))
                text = QUERIES[n % len(QUERIES)]
                _age_scan(root, 10)                 # due in 10 s: within the server's lead
                scans, deadline = warm.talk(root, {"op": "ping"}, 5)["scans"], time.monotonic() + 60
                while warm.talk(root, {"op": "ping"}, 5)["scans"] == scans:     # a request wakes it to look
                    assert time.monotonic() < deadline, f"{name}: the server did not scan ahead"
                    time.sleep(0.05)
                into.setdefault("after_pause", []).append(_timed([*SOUVERAINE, "recall", text], env))
                _age_scan(root, -1)                 # due now: the query scans, in the server as it did before
                into.setdefault("after_pause_unscanned", []).append(_timed([*SOUVERAINE, "recall", text], env))
                _age_scan(root, -1)                 # due: the command scans
                into.setdefault("after_pause_in_process", []).append(_timed([*SOUVERAINE, "recall", text],
                                                                            {**env, warm.OFF: "1"}))
                loads.append(os.getloadavg()[0])
    finally:
        for root in roots.values():
            recall_server.stop(root)
        for process in processes.values():
            process.wait(timeout=30)
    out = {name: {key: _ms((statistics.mean if key == "server_cpu" else statistics.median)(values))
                  for key, values in into.items()} for name, into in times.items()}
    return {**out, "load": round(statistics.median(loads), 1)}


def _age_scan(root: Path, seconds_left: float) -> None:
    """The index's last scan made as old as a pause makes it: due in ``seconds_left``."""
    import sqlite3

    conn = sqlite3.connect(index.location(Memory(root)))
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'scanned'",
                     (json.dumps(time.time() - index.SCAN_SECONDS + seconds_left),))
    conn.close()


def random_vectors(root: Path) -> int:
    """Fill the memory's vector store with random unit vectors under the real keys, so a server
    has the model to load but nothing to encode: what a query costs at a size whose vectors would
    take hours to compute here (its ranking is noise; only its time counts)."""
    import numpy as np

    from souveraine.recall import semantic

    memory = Memory(root)
    conn, _ = index.fresh(memory)
    try:
        todo = semantic.missing(conn, semantic.location(memory))
    finally:
        conn.close()
    made = np.random.default_rng(1).standard_normal((len(todo), semantic.current().dimensions)).astype(np.float32)
    made /= np.linalg.norm(made, axis=1, keepdims=True)
    store = semantic.Store(semantic.location(memory))
    try:
        store.put([(k, made[n].astype(np.float16).tobytes()) for n, (k, _) in enumerate(todo)])
    finally:
        store.close()
    return len(todo)


def _set_semantic(root: Path, on: bool, encoder: str = "auto") -> None:
    config = root / "souveraine.toml"
    kept, section = [], ""
    for row in config.read_text(encoding="utf-8").splitlines():
        if row.startswith("["):
            section = row.strip()
        if not (section == "[recall]" and row.split("=")[0].strip() in ("semantic", "encoder")):
            kept.append(row)        # a memory given as it is may name them already
    text = "\n".join(kept) + "\n"
    line = f"semantic = {'true' if on else 'false'}\nencoder = \"{encoder}\""
    text = text.replace("[recall]\n", f"[recall]\n{line}\n") if "[recall]\n" in text else f"{text}\n[recall]\n{line}\n"
    config.write_text(text, encoding="utf-8")


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed_cpu(argv: list[str], env: dict) -> tuple[float, float]:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = _timed(argv, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _timed(argv: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def _one_turn(memory: Memory, n: int) -> None:
    """A turn appended and committed without hooks, as the figures' "index update after one turn"."""
    at = datetime.combine(END, datetime.min.time()) + timedelta(hours=22, seconds=n)
    rel = f"journal/{END:%Y/%m/%Y-%m-%d}.md"
    texts, _ = day_texts([Line(at, "user", f"one more turn about zeppelins number {n}", "bench")],
                         {rel: memory.read_text(rel)} if memory.exists(rel) else {})
    (memory.root / rel).write_text(texts[rel], encoding="utf-8")
    subprocess.run(["git", "-C", str(memory.root), "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m",
                    f"chore(journal): one more turn {n}", "--", rel], check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", default="1,10", help="comma-separated sizes in years")
    parser.add_argument("--turns-per-day", type=int, default=40)
    parser.add_argument("--memories-per-day", type=int, default=generate.Shape.memories_per_day)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--side-by-side", action="store_true", help="CLI, in-process and update times, sizes in turn")
    parser.add_argument("--served", action="store_true",
                        help="the CLI through a warm recall server, with and without vectors, beside its floor")
    parser.add_argument("--vector-days", type=int, default=30,
                        help="with --served: the days of the memory served with vectors (its server computes them first)")
    parser.add_argument("--vectors", action="store_true",
                        help="with --served: also each size served with the real vectors of the encoder installed"
                             " (its server computes them first: minutes at ten years with the static encoder)")
    parser.add_argument("--encoder", default="auto", choices=("auto", "static", "minilm"),
                        help="with --served: the sentence encoder the memories name ([recall] encoder)")
    parser.add_argument("--random-vectors", action="store_true",
                        help="with --served: also each size served with random vectors (their cost, not their ranking)")
    parser.add_argument("--cache", type=Path, default=generate.CACHE)
    parser.add_argument("--memory", action="append", default=[], metavar="LABEL=PATH",
                        help="with --served: ask this memory as it is instead of generated ones (repeatable; a"
                             " LABEL ending in ', vectors' is served with them: its souveraine.toml is rewritten)")
    args = parser.parse_args()
    if args.served and args.memory:
        roots = {label: Path(path) for label, _, path in (given.partition("=") for given in args.memory)}
        print(json.dumps(served(roots, args.repeat, args.encoder), indent=2))
        return
    if args.served:
        sizes = [(f"{years} y", generate.Shape.years(years)) for years in (int(y) for y in args.years.split(","))]
        shapes = [(f"{args.vector_days} d, vectors", generate.Shape(days=args.vector_days)), *sizes]
        if args.vectors:
            shapes += [(f"{label}, vectors", shape) for label, shape in sizes]
        if args.random_vectors:
            shapes += [(f"{label}, random vectors", shape) for label, shape in sizes]
        with tempfile.TemporaryDirectory() as tmp:
            roots = {}
            for label, shape in shapes:
                folder = Path(tmp) / str(len(roots))
                folder.mkdir()
                roots[label] = generate.copy_of(generate.cached(shape, cache=args.cache), folder)
                index.rebuild(Memory(roots[label]))
                if "random" in label:
                    random_vectors(roots[label])
            print(json.dumps(served(roots, args.repeat, args.encoder), indent=2))
        return
    os.environ["SOUVERAINE_NOW"] = f"{END.isoformat()}T23:30:00+00:00"
    if args.side_by_side:
        with tempfile.TemporaryDirectory() as tmp:
            roots = {}
            for years in (int(y) for y in args.years.split(",")):
                built = generate.cached(generate.Shape.years(years, turns_per_day=args.turns_per_day,
                                                             memories_per_day=args.memories_per_day, seed=args.seed))
                (Path(tmp) / f"{years}y").mkdir()
                roots[f"{years}y"] = generate.copy_of(built, Path(tmp) / f"{years}y")
                index.rebuild(Memory(roots[f"{years}y"]))
            print(json.dumps(side_by_side(roots, args.repeat), indent=2))
        return
    results = {}
    for years in (int(y) for y in args.years.split(",")):
        built = generate.cached(generate.Shape.years(years, turns_per_day=args.turns_per_day,
                                                     memories_per_day=args.memories_per_day, seed=args.seed))
        with tempfile.TemporaryDirectory() as tmp:
            root = generate.copy_of(built, Path(tmp))
            results[f"{years}y"] = measure(root, args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.turns_per_day} turns a day, {args.memories_per_day} memories a day; machine: {os.cpu_count()} cores\n")
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
