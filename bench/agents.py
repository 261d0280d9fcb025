"""What an agent meets on a lived memory: its tool definitions, the capped wake, the MCP pages, a re-fired Stop.

    python bench/agents.py [--years 1] [--repeat 9]

On the generated memory of ``years`` (bench/generate.py, cached under bench/.cache), printed:

- the tool definitions: the core five and all of them, in OpenAI's and Anthropic's shapes
  (compact JSON; tokens estimated at four characters each);
- the wake uncut and under 9,500 and 10,000 characters: its length, what it kept, what it left out;
- the MCP resource list: how many pages, the largest page's size and time, beside listing every
  note in one answer as the server did before it paged (the same entries, one page);
- Claude Code's Stop hook (`persist --claude-code`, the recorded transcript in
  tests/fixtures/claude-code), after a first persist has built the copy's caches: its first
  fire, then the same payload fired again, beside
  `python -c pass` and `souveraine --version`, medians interleaved in one run;
- Claude Code's SessionStart hook: `wake --max-chars 9500` beside `wake --max-chars 9500 --serve`
  starting a recall server (stopped after each run, once it answered) and finding one already
  listening, in turn, with each hook's own CPU (the server's start is not the hook's: it is
  detached). With the semantic extra installed; without it `--serve` starts nothing.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import generate  # noqa: E402
from bench.common import ROOT, SOUVERAINE, interleaved, ms, run_once, table  # noqa: E402

CLAUDE = ROOT / "tests" / "fixtures" / "claude-code"


def definitions() -> list[tuple]:
    from souveraine.agents import tooldefs

    rows = []
    for label, every in (("core five", False), ("all", True)):
        for fmt in tooldefs.FORMATS:
            text = json.dumps(tooldefs.definitions(fmt, None, every))
            rows.append((label, fmt, len(tooldefs.select(None, every)), f"{len(text):,}", f"~{len(text) // 4:,}"))
    return rows


def wakes(root: Path) -> list[tuple]:
    from souveraine.store.memory import Memory
    from souveraine.wake import wake

    memory, rows = Memory(root), []
    for cap in (None, 10_000, 9_500):
        found = wake(memory, max_chars=cap)
        text = found.markdown()
        kept = [h[3:] for h in text.splitlines() if h.startswith("## ") and h != "## Left out"]
        out: dict[str, int] = {}
        for part in found.left_out:
            out[part.section] = out.get(part.section, 0) + 1
        rows.append((f"{cap:,}" if cap else "uncut", f"{len(text):,}", ", ".join(kept),
                     ", ".join(f"{n} {name}" for name, n in out.items()) or "—"))
    return rows


def pages(root: Path) -> list[tuple]:
    import anyio
    from mcp import Client
    from mcp.types import ListResourcesResult, Resource

    from souveraine.agents import server

    async def listed():
        async with Client(server.build(root)) as client:
            sizes, times, cursor = [], [], None
            while True:
                start = time.perf_counter()
                page = await client.list_resources(cursor=cursor)
                times.append(time.perf_counter() - start)
                sizes.append(len(page.model_dump_json(by_alias=True, exclude_none=True)))
                cursor = page.next_cursor
                if cursor is None:
                    return sizes, times, len(page.resources)

    sizes, times, _ = anyio.run(listed)
    start = time.perf_counter()
    whole = ListResourcesResult(resources=[
        Resource(uri=server.URI + path, name=path, description=server._described(root, path) or None,
                 mime_type="text/markdown") for path in server.listed_notes(root)])
    unpaged = len(whole.model_dump_json(by_alias=True, exclude_none=True))
    once = time.perf_counter() - start
    return [("paged", len(sizes), f"{max(sizes):,}", ms(max(times))),
            ("one answer (before)", 1, f"{unpaged:,}", ms(once))]


def stop(root: Path, repeat: int) -> list[tuple]:
    work = Path(tempfile.mkdtemp(prefix="bench-agents-"))
    try:
        transcript = work / "5d7f2c1e.jsonl"
        shutil.copy(CLAUDE / "transcript.jsonl", transcript)
        payload = json.dumps({**json.loads((CLAUDE / "stop.json").read_text()), "transcript_path": str(transcript)})
        persist = [*SOUVERAINE, "--memory", str(root), "persist", "--claude-code"]
        env = {"SOUVERAINE_NOW": "2026-11-30T14:32:14+00:00"}
        cold = run_once([*SOUVERAINE, "--memory", str(root), "persist", "--user", "Are you there?",
                         "--assistant", "I am."], env=env)
        first = run_once(persist, input=payload, env=env)
        times = interleaved({"python -c pass": [sys.executable, "-c", "pass"],
                             "souveraine --version": [*SOUVERAINE, "--version"],
                             "Stop fired again": persist}, repeat=repeat, input=payload, env=env)
        return [("a first persist on the copy (its caches built)", ms(cold)), ("Stop, first fire", ms(first))] + [(name, ms(seconds)) for name, seconds in times.items()]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def session_start(root: Path, repeat: int) -> list[tuple]:
    from souveraine.recall import server, warm

    env = {k: v for k, v in os.environ.items() if k not in (warm.OFF, "SOUVERAINE_NOW")}
    wake = [*SOUVERAINE, "--memory", str(root), "wake", "--max-chars", "9500"]
    runs = {"wake --max-chars 9500": [], "… --serve, starting a server": [], "… --serve, one listening": []}
    cpu = {name: [] for name in runs}

    def hook(name: str, argv: list[str]) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True, cwd=root)
        runs[name].append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

    def answering() -> None:
        deadline = time.monotonic() + 60
        while warm.talk(root, {"op": "ping"}, 5) is None:
            if time.monotonic() > deadline:
                raise SystemExit("bench: wake --serve started no recall server (is the semantic extra installed?)")
            time.sleep(0.05)

    try:
        for _ in range(repeat):
            hook("wake --max-chars 9500", wake)
            hook("… --serve, starting a server", [*wake, "--serve"])
            answering()
            hook("… --serve, one listening", [*wake, "--serve"])
            server.stop(root)
    finally:
        server.stop(root)
    return [(name, ms(statistics.median(times)), ms(statistics.median(cpu[name]))) for name, times in runs.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--cache", type=Path, default=generate.CACHE)
    parser.add_argument("--only", choices=("session-start",), help="only this section")
    options = parser.parse_args()
    built = generate.cached(generate.Shape.years(options.years), cache=options.cache)
    work = Path(tempfile.mkdtemp(prefix="bench-agents-memory-"))
    try:
        root = generate.copy_of(built, work)
        if options.only:
            print(f"## Claude Code's SessionStart hook (load {os.getloadavg()[0]:.1f})\n\n"
                  f"{table(session_start(root, options.repeat), ('hook', 'median', 'its CPU'))}")
            return
        print(f"## Tool definitions\n\n{table(definitions(), ('tools', 'shape', 'n', 'bytes', 'tokens'))}\n")
        print(f"## The wake on {options.years:g} year(s)\n\n{table(wakes(root), ('cap', 'chars', 'kept', 'left out'))}\n")
        print(f"## MCP resources\n\n{table(pages(root), ('listing', 'answers', 'largest bytes', 'largest time'))}\n")
        print(f"## Claude Code's Stop hook\n\n{table(stop(root, options.repeat), ('run', 'median'))}\n")
        print(f"## Claude Code's SessionStart hook (load {os.getloadavg()[0]:.1f})\n\n"
              f"{table(session_start(root, options.repeat), ('hook', 'median', 'its CPU'))}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
