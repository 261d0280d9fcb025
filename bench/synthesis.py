"""Planted facts through the archivist: how many survive 100 and 1,000 turns of conversation.

Usage: python bench/synthesis.py [--turns 1000] [--every 100] [--half dev|held-out|both] [--seed 7]
       [--endpoint URL --model NAME [--context 8192]] [--stop N]   # through a local model (docs/MODELS.md)

bench/data/planted_facts.tsv holds 209 facts (a decision, a date, a time, a number, a
preference, a commitment, what someone is or said), each a turn written as people write
them, with the words a kept line must hold; bench/data/chatter.tsv holds everyday talk
that plants nothing. The facts are split into two halves by line (even: development,
odd: held-out), and so is the chatter. Each half becomes its own conversation of
``--turns`` turns, 40 a day, with its facts at random places (the first five within
the first 50 turns, said once and never again) and the archivist run every ``--every``
turns, each synthesis carrying the last one forward.

A fact is kept when a line of the synthesis holds its words and cites a turn that holds
them too. Every citation of every line is checked against the journal.
Targets: ≥ 95 % kept after 100 turns, ≥ 90 % after 1,000, no citation that does not resolve.
"""

import argparse
import csv
import json
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DATA = Path(__file__).resolve().parent / "data"
HALVES = ("dev", "held-out")
_LINK = re.compile(r"\[\[(journal/[^\]#|]+)#\^([\w-]+)(?:\|[^\]]*)?\]\]")


@dataclass
class Fact:
    role: str
    keys: list[str]
    text: str
    at: int = -1          # its turn's index in the conversation


def rows(name: str) -> list[list[str]]:
    with open(DATA / name, encoding="utf-8", newline="") as handle:
        return [row for row in csv.reader(handle, delimiter="\t") if row and not row[0].startswith("#")]


def planted(half: str) -> list[Fact]:
    pick = HALVES.index(half)
    return [Fact(role, [k.strip() for k in keys.split("|")], text) for i, (role, keys, text) in enumerate(rows("planted_facts.tsv"))
            if i % 2 == pick]


def chatter(half: str) -> dict[str, list[str]]:
    pick = HALVES.index(half)
    talk = {"user": [], "assistant": []}
    for i, (role, text) in enumerate(rows("chatter.tsv")):
        if i % 2 == pick:
            talk[role].append(text.replace("\\n", "\n"))
    return talk


def conversation(half: str, turns: int, seed: int = 7, facts: list[Fact] | None = None) -> tuple[list[tuple[str, str]], list[Fact]]:
    """``turns`` alternating turns (user first) with the half's facts planted among chatter."""
    rng = random.Random(f"{half}-{seed}")
    facts = [Fact(f.role, f.keys, f.text) for f in (facts if facts is not None else planted(half))]
    rng.shuffle(facts)
    free = {"user": list(range(0, turns, 2)), "assistant": list(range(1, turns, 2))}
    for fact in facts[:5]:                    # said once, early
        early = [i for i in free[fact.role] if i < 50]
        fact.at = rng.choice(early)
        free[fact.role].remove(fact.at)
    for fact in facts[5:]:
        if not free[fact.role]:
            break
        fact.at = free[fact.role].pop(rng.randrange(len(free[fact.role])))
    facts = [f for f in facts if f.at >= 0]
    talk = chatter(half)
    by_turn = {f.at: f for f in facts}
    said = []
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        said.append((role, by_turn[i].text if i in by_turn else rng.choice(talk[role])))
    return said, facts


def journal_turns(memory, said: list[tuple[str, str]], start: datetime, first: int = 0) -> None:
    """Write turns to the journal, 40 a day, two minutes apart, one commit a day."""
    from souveraine.store import journal

    by_day: dict = {}
    for n, (role, text) in enumerate(said, first):
        at = start + timedelta(days=n // 40, minutes=2 * (n % 40))
        by_day.setdefault(at.date(), []).append((at, role, text))
    for day, items in by_day.items():
        relpath = journal.day_path(day)
        existing = memory.read_text(relpath) if memory.exists(relpath) else ""
        chunk, taken = "" if existing else journal.header(day), journal.block_ids(existing)
        for at, role, text in items:
            block = journal.block_id(at, role, text, "bench", taken)
            taken.add(block)
            chunk += journal.render(at, role, text, "bench", block)
        with memory.change(f"chore(journal): {len(items)} turns") as change:
            change.append(relpath, chunk)


def score(memory, path: str, facts: list[Fact]) -> dict:
    """Facts kept by the synthesis at ``path``, and every citation checked."""
    from souveraine.store import journal

    body = memory.read_text(path)
    lines = [line for line in body.splitlines() if line.startswith("- ")]
    cache: dict = {}

    def turn_text(relpath: str, block: str) -> str | None:
        if relpath not in cache:
            full = f"{relpath}.md"
            cache[relpath] = {t.block_id: t.text for t in journal.parse(memory.read_text(full), full)} if memory.exists(full) else {}
        return cache[relpath].get(block)

    broken = 0
    for line in lines:
        for relpath, block in _LINK.findall(line):
            broken += turn_text(relpath, block) is None
    kept, lost = 0, []
    for fact in facts:
        keys = [k.casefold() for k in fact.keys]
        holds = lambda text: text is not None and all(k in text.casefold() for k in keys)  # noqa: E731
        if any(holds(line) and any(holds(turn_text(r, b)) for r, b in _LINK.findall(line)) for line in lines):
            kept += 1
        else:
            lost.append(fact)
    return {"facts": len(facts), "kept": kept, "share": kept / len(facts) if facts else 1.0, "lines": len(lines),
            "broken_citations": broken, "lost": lost, "tokens": len(body) // 4}


def run(half: str, turns: int, every: int, seed: int, root: Path, model: dict | None = None,
        stop: int | None = None, on_each=None) -> list[dict]:
    """The half's conversation, archived every ``every`` turns; one score after each synthesis.
    With ``model`` ({"endpoint", "model", "context"}), the archivist asks that model."""
    from souveraine.bootstrap import init
    from souveraine.store.memory import Memory
    from souveraine.tempos import archive

    memory = Memory(init(root / half, identity="ada").root)
    if model:
        text = memory.read_text("souveraine.toml")
        head, _, rest = text.partition("[inference]\n")
        section, nxt, tail = rest.partition("\n[")
        for key, value in {**model, "timeout": 900, "retries": 0}.items():
            line = f"{key} = {json.dumps(value)}"
            section, found = re.subn(rf"(?m)^{key} = .*$", line, section, count=1)
            section = section if found else f"{line}\n{section}"
        text = f"{head}[inference]\n{section}{nxt}{tail}"
        with memory.change("chore(config): the bench's model") as change:
            change.write("souveraine.toml", text)
        memory = Memory(memory.root)
    said, facts = conversation(half, turns, seed)
    start = datetime(2026, 9, 1, 9, 0)
    out = []
    for first in range(0, stop or turns, every):
        journal_turns(memory, said[first:first + every], start, first)
        began, cpu = time.monotonic(), time.process_time()
        done = archive.run(memory, force=True, extractive_only=not model)
        took = {"seconds": time.monotonic() - began, "cpu": time.process_time() - cpu, "load": os.getloadavg()[0]}
        upto = first + every
        result = score(memory, done["path"], [f for f in facts if f.at < upto])
        out.append({"turns": upto, **result, "method": done["method"], "guard": done.get("guard"), **took})
        if on_each:
            on_each(out[-1])
    return out


def report(half: str, r: dict, model: dict | None) -> None:
    """One synthesis's line; with a model, its wall time, its process's CPU time and the load."""
    extra = (f", {r['method']}, guard {r['guard']}, {r['seconds']:.0f} s wall ({r['cpu']:.1f} s CPU here, "
             f"load {r['load']:.1f})") if model else ""
    print(f"{half:9} after {r['turns']:5} turns: {r['kept']:3}/{r['facts']:3} facts kept "
          f"({r['share']:.1%}), {r['lines']} lines, ~{r['tokens']} tokens, "
          f"{r['broken_citations']} broken citations{extra}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show-lost", action="store_true", help="print the facts lost (development half only)")
    parser.add_argument("--endpoint", help="an OpenAI-compatible base URL: the archivist asks its model")
    parser.add_argument("--model", help="the model's name at --endpoint")
    parser.add_argument("--context", type=int, default=8192, help="the server's context, in tokens")
    parser.add_argument("--stop", type=int, help="archive only the first N turns of the conversation")
    args = parser.parse_args()
    model = {"endpoint": args.endpoint, "model": args.model, "context": args.context} if args.endpoint else None
    os.environ.setdefault("SOUVERAINE_NOW", "2026-12-01T12:00:00")
    halves = HALVES if args.half == "both" else (args.half,)
    with tempfile.TemporaryDirectory(prefix="souveraine-synthesis-") as tmp:
        for half in halves:
            results = run(half, args.turns, args.every, args.seed, Path(tmp), model, args.stop,
                          on_each=lambda r, half=half: report(half, r, model))
            if args.show_lost and half == "dev":
                for fact in results[-1]["lost"]:
                    print(f"  lost (turn {fact.at}): {fact.text}")


if __name__ == "__main__":
    main()
