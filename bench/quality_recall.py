"""How often recall finds the planted turn: recall@5 and recall@10, variant by variant.

    python bench/quality_recall.py [--sessions 80] [--turns 40] [--seeds 7,11,13]

Generates a long multi-session conversation with planted facts (bench/conversations.py),
writes it into a fresh memory's journal as persist does, and asks each question under each
variant: plain BM25 (no stemming, no context, no weights, dates as words, no recency), the
shipped settings, and the shipped settings with one thing changed. Prints a table (and
--json); docs/RECALL.md keeps the figures.
"""

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.conversations import Conversation, generate, ingest  # noqa: E402
from souveraine.recall import index, rank  # noqa: E402
from souveraine.recall.search import recall  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

EQUAL = {"title": 1.0, "body": 1.0, "context": 1.0, "links": 1.0}


@dataclass(frozen=True)
class Variant:
    name: str
    options: index.Options = index.Options()
    weights: dict = field(default_factory=lambda: dict(rank.COLUMN_WEIGHTS))
    recency: bool = True
    date_phrases: bool = True
    half_life_days: float = 30.0
    recency_weight: float = rank.RECENCY_WEIGHT
    date_weight: float = rank.DATE_WEIGHT
    answer_share: float = rank.Ranking.answer_share
    diversity: float = rank.Ranking.diversity
    prompt_share: float = rank.Ranking.prompt_share
    asking: float = rank.Ranking.asking


SHIPPED = Variant("shipped: porter, context 0.25, dates, recency, answers, diversity")
PLAIN = Variant("plain BM25 (unicode61, no context, dates as words, no recency)",
                index.Options("unicode61 remove_diacritics 2", "none"), EQUAL, False, False,
                date_weight=0.0, answer_share=0.0, diversity=0.0, prompt_share=0.0, asking=1.0)
VARIANTS = [
    PLAIN,
    SHIPPED,
    replace(SHIPPED, name="  recency off", recency=False),
    replace(SHIPPED, name="  half-life 365 days", half_life_days=365.0),
    replace(SHIPPED, name="  recency weight 1.0", recency_weight=1.0),
    replace(SHIPPED, name="  recency weight 0.25", recency_weight=0.25),
    replace(SHIPPED, name="  no stemming (unicode61)", options=index.Options("unicode61 remove_diacritics 2", "neighbors")),
    replace(SHIPPED, name="  no context (turn alone)", options=index.Options(context="none")),
    replace(SHIPPED, name="  previous turn as context", options=index.Options(context="previous")),
    replace(SHIPPED, name="  whole-session context", options=index.Options(context="session")),
    replace(SHIPPED, name="  context weight 1.0", weights={**rank.COLUMN_WEIGHTS, "context": 1.0}),
    replace(SHIPPED, name="  context weight 0.1", weights={**rank.COLUMN_WEIGHTS, "context": 0.1}),
    replace(SHIPPED, name="  dates as words, not evidence", date_phrases=False),
    replace(SHIPPED, name="  no answer inheritance", answer_share=0.0),
    replace(SHIPPED, name="  no diversity", diversity=0.0),
    replace(SHIPPED, name="  no inheritance from the reply", prompt_share=0.0),
    replace(SHIPPED, name="  asking turns at full score", asking=1.0),
]


def measure(memory: Memory, conversation: Conversation, variant: Variant = SHIPPED) -> dict:
    """recall@5 and recall@10 of the planted turns, overall and per kind of fact."""
    now = datetime.combine(conversation.end, datetime.min.time()).replace(hour=23).astimezone()
    ranking = rank.Ranking(now.timestamp(), variant.half_life_days, variant.recency, variant.recency_weight,
                           variant.weights, variant.date_weight, variant.answer_share, variant.diversity,
                           prompt_share=variant.prompt_share, asking=variant.asking)
    ranks, kinds = [], {}
    for question in conversation.questions:
        target = conversation.targets[question.fact]
        hits = recall(memory, question.text, limit=10, recency=variant.recency,
                      date_phrases=variant.date_phrases, ranking=ranking).hits
        found = next((n for n, h in enumerate(hits, 1) if (h.path, h.block) == target), None)
        ranks.append(found)
        kinds.setdefault(question.kind, []).append(found)
    return {"variant": variant.name, "questions": len(ranks), **_at(ranks),
            "latest@1": _at(kinds.get("latest", []))["recall@1"],
            "kinds": {kind: _at(found)["recall@10"] for kind, found in sorted(kinds.items())}}


def prepare(root: Path, conversation: Conversation) -> Memory:
    """A fresh memory holding the conversation, its clock set to the conversation's end."""
    from souveraine.bootstrap import init

    os.environ["SOUVERAINE_NOW"] = f"{conversation.end.isoformat()}T23:00:00"
    memory = Memory(init(root, identity="ada").root)
    ingest(memory, conversation)
    return memory


def run(sessions: int, turns: int, seed: int) -> list[dict]:
    conversation = generate(sessions=sessions, turns_per_session=turns, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        memory = prepare(Path(tmp) / "memory", conversation)
        results = []
        for variant in VARIANTS:
            index.rebuild(memory, variant.options)
            results.append(measure(memory, conversation, variant))
    return results


def pooled(runs: list[list[dict]]) -> list[dict]:
    """Several seeds' results as one, weighted by their questions."""
    out = []
    for rows in zip(*runs):
        total = sum(r["questions"] for r in rows)
        merged = {"variant": rows[0]["variant"], "questions": total}
        for key in ("recall@1", "recall@5", "recall@10"):
            merged[key] = round(sum(r[key] * r["questions"] for r in rows) / total, 3)
        kinds = {}
        for r in rows:
            for kind, value in r["kinds"].items():
                kinds.setdefault(kind, []).append(value)
        merged["latest@1"] = round(sum(r["latest@1"] for r in rows) / len(rows), 3)
        merged["kinds"] = {k: round(sum(v) / len(v), 3) for k, v in kinds.items()}
        out.append(merged)
    return out


def _at(ranks: list[int | None]) -> dict:
    total = len(ranks) or 1
    return {"recall@1": round(sum(1 for r in ranks if r == 1) / total, 3),
            "recall@5": round(sum(1 for r in ranks if r and r <= 5) / total, 3),
            "recall@10": round(sum(1 for r in ranks if r and r <= 10) / total, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=80)
    parser.add_argument("--turns", type=int, default=40, help="turns per session")
    parser.add_argument("--seeds", default="7,11,13", help="comma-separated seeds, pooled")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    results = pooled([run(args.sessions, args.turns, seed) for seed in seeds])
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.sessions} sessions x {args.turns} turns, {results[0]['questions']} questions, seeds {args.seeds}\n")
    print(f"{'variant':<66} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'latest@1':>9}")
    for r in results:
        print(f"{r['variant']:<66} {r['recall@1']:>6.3f} {r['recall@5']:>6.3f} {r['recall@10']:>6.3f}"
              f" {r['latest@1']:>9.3f}")
    print("\nrecall@10 by kind (shipped):", json.dumps(results[1]["kinds"]))


if __name__ == "__main__":
    main()
