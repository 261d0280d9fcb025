"""How well the subconscious judges: the labelled corpus, its development and held-out halves.

    python bench/quality_judgement.py [--json] [--failures]

The corpus is tests/data/judgement/ (and tests/data/promises.tsv, whose 360 sentences the
detector was tuned on, so all of them count in the development half). Each item falls in
one half by a hash of its text, fixed before any tuning; ``--failures`` lists the
development half's misses only — the held-out half is measured, never read for tuning.
docs/QUALITY.md keeps the figures; tests/tempos/test_judgement_quality.py guards the
held-out half.
"""

import argparse
import hashlib
import json
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT / "tests" / "data" / "judgement"
TUNED = ROOT / "tests" / "data" / "promises.tsv"
HALVES = ("dev", "held", "fresh")
DEVELOPMENT = DATA / "development"   # items written to tune on: all in the development half
FRESH = DATA / "fresh"               # written after the rules, measured, never tuned on
TARGETS = {
    "promise_recall": 0.90, "promise_precision": 0.97, "claims_made_true": 0.90, "closure_accuracy": 0.90,
    "unanswered_precision": 0.80, "unanswered_recall": 0.70, "corrections_routed": 0.85, "due_day_exact": 0.90,
}


def half(text: str) -> str:
    """The item's half: by the first byte of its text's SHA-1, never by its content's meaning."""
    return "held" if hashlib.sha1(text.encode("utf-8")).digest()[0] % 2 else "dev"


def _rows(path: Path) -> list[list[str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([part.replace("\\n", "\n") for part in line.split("\t")])
    return rows


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _tasks(folder: Path, half_of) -> dict[str, list[dict]]:
    """The items of one folder of the corpus, each in the half ``half_of(its text)`` names."""
    return {
        "promises": [{"label": label, "category": category, "text": text, "half": half_of(text)}
                     for label, category, text in _rows(folder / "promises.tsv")],
        "claims": [{"label": label, "key": key, "user": user, "assistant": text, "half": half_of(user + text)}
                   for label, key, user, text in _rows(folder / "claims.tsv")],
        "closures": [{**item, "half": half_of(item["answer"] + "".join(item["open"]))}
                     for item in _jsonl(folder / "closures.jsonl")],
        "questions": [{**item, "half": half_of(item["user"] + item["assistant"])}
                      for item in _jsonl(folder / "questions.jsonl")],
        "corrections": [{"label": label, "text": text, "half": half_of(text)}
                        for label, text in _rows(folder / "corrections.tsv")],
        "dated": [{"now": now, "due": due, "text": text, "half": half_of(now + text)}
                  for now, due, text in _rows(folder / "dated.tsv")],
    }


def load() -> dict[str, list[dict]]:
    """Every task's items, each with its half: dev, held, or fresh (the sealed third set)."""
    tasks = _tasks(DATA, half)
    for line in TUNED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            positive, kind, category, text = line.split("\t")
            tasks["promises"].append({"label": kind if positive == "1" else "none", "category": category,
                                      "text": text, "half": "dev"})
    for folder, which in ((DEVELOPMENT, "dev"), (FRESH, "fresh")):
        if folder.is_dir():
            for name, items in _tasks(folder, lambda _text, which=which: which).items():
                tasks[name] += items
    return tasks


# -- one judge per task: what the subconscious says about an item ---------------------

def judge_promise(item) -> str:
    from souveraine.tempos import promises

    found = promises.find(item["text"])
    return found[0].kind if found else "none"


def judge_claim(item) -> str:
    """The memory's text the subconscious would write, or "" when it sees no claim."""
    from souveraine.tempos import facts, promises

    for promise in promises.find(item["assistant"]):
        if promise.claimed:
            return facts.statement(promise, item["user"], datetime(2026, 12, 1, 10, 0)) or ""
    return ""


def judge_closure(item):
    from souveraine.tempos import closures

    return closures.which(item["open"], item["answer"])


def judge_question(item) -> bool:
    from souveraine.tempos.answered import unanswered

    return bool(unanswered(item["user"], item["assistant"]))


def judge_correction(item) -> str:
    from souveraine.tempos import corrections

    found = corrections.read(item["text"])
    return found.target if found else "none"


def judge_due(item) -> str:
    from souveraine.tempos import promises

    now = datetime.fromisoformat(item["now"])
    found = promises.find(item["text"], now=now)
    due = next((p.due for p in found if p.due), None)
    return due.day.isoformat() if due else "none"


# -- figures ---------------------------------------------------------------------------

def _ratio(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def measure(tasks: dict, which: str) -> tuple[dict, dict]:
    """The figures of one half, and its misses by task."""
    pick = lambda name: [i for i in tasks[name] if i["half"] == which]  # noqa: E731
    figures, misses = {}, {}

    items = pick("promises")
    said = [(i, judge_promise(i)) for i in items]
    tp = sum(1 for i, k in said if i["label"] != "none" and k != "none")
    fp = sum(1 for i, k in said if i["label"] == "none" and k != "none")
    fn = sum(1 for i, k in said if i["label"] != "none" and k == "none")
    figures["promise_items"] = len(items)
    figures["promise_precision"] = _ratio(tp, tp + fp)
    figures["promise_recall"] = _ratio(tp, tp + fn)
    figures["promise_kind_right"] = _ratio(sum(1 for i, k in said if i["label"] != "none" and k == i["label"]), tp)
    misses["promises"] = [(i["label"], k, i["text"]) for i, k in said if (i["label"] == "none") != (k == "none")]

    items = pick("claims")
    said = [(i, judge_claim(i)) for i in items]
    positives = [(i, s) for i, s in said if i["label"] == "claim"]
    made = sum(1 for i, s in positives if s and i["key"].casefold() in s.casefold())
    figures["claim_items"] = len(items)
    figures["claims_made_true"] = _ratio(made, len(positives))
    figures["claims_false_alarms"] = sum(1 for i, s in said if i["label"] == "none" and s)
    misses["claims"] = [(i["label"], s, i["assistant"]) for i, s in said
                        if (i["label"] == "claim") != bool(s and (i["label"] != "claim" or i["key"].casefold() in s.casefold()))]

    items = pick("closures")
    said = [(i, judge_closure(i)) for i in items]
    figures["closure_items"] = len(items)
    figures["closure_accuracy"] = _ratio(sum(1 for i, w in said if w == i["closes"]), len(items))
    misses["closures"] = [(i["closes"], w, i["answer"]) for i, w in said if w != i["closes"]]

    items = pick("questions")
    said = [(i, judge_question(i)) for i in items]
    tp = sum(1 for i, f in said if f and i["flag"])
    fp = sum(1 for i, f in said if f and not i["flag"])
    fn = sum(1 for i, f in said if not f and i["flag"])
    figures["question_items"] = len(items)
    figures["unanswered_precision"] = _ratio(tp, tp + fp)
    figures["unanswered_recall"] = _ratio(tp, tp + fn)
    misses["questions"] = [(i["flag"], f, i["user"] + " => " + i["assistant"]) for i, f in said if f != i["flag"]]

    items = pick("corrections")
    said = [(i, judge_correction(i)) for i in items]
    figures["correction_items"] = len(items)
    figures["corrections_routed"] = _ratio(sum(1 for i, t in said if t == i["label"]), len(items))
    misses["corrections"] = [(i["label"], t, i["text"]) for i, t in said if t != i["label"]]

    items = pick("dated")
    said = [(i, judge_due(i)) for i in items]
    figures["dated_items"] = len(items)
    figures["due_day_exact"] = _ratio(sum(1 for i, d in said if d == i["due"]), len(items))
    misses["dated"] = [(i["due"], d, i["now"] + " " + i["text"]) for i, d in said if d != i["due"]]
    return figures, misses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--failures", action="store_true", help="List the development half's misses.")
    options = parser.parse_args(argv)
    tasks = load()
    results = {which: measure(tasks, which) for which in HALVES}
    if options.json:
        print(json.dumps({which: figures for which, (figures, _) in results.items()}, indent=2))
        return
    total = sum(len(items) for items in tasks.values())
    count = {which: sum(1 for t in tasks.values() for i in t if i["half"] == which) for which in HALVES}
    print(f"labelled items: {total} ({count['dev']} development, {count['held']} held out, {count['fresh']} fresh)")
    print(f"{'figure':24} {'target':>7} {'dev':>7} {'held':>7} {'fresh':>7}")
    for key in results["dev"][0]:
        target = TARGETS.get(key)
        mark = f"≥{target:.2f}" if target else ""
        print(f"{key:24} {mark:>7} {results['dev'][0][key]:>7} {results['held'][0][key]:>7} {results['fresh'][0][key]:>7}")
    if options.failures:
        for task, missed in results["dev"][1].items():
            for miss in missed:
                print(f"[dev {task}] expected {miss[0]!r}, said {miss[1]!r}: {miss[2]!r}")


if __name__ == "__main__":
    main()
