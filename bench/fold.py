"""The Fold's judgement of a turn — a turning point or not — on a labelled set, per half.

Usage: python bench/fold.py [--half dev|held-out|both] [--show-errors]

bench/data/fold.tsv: 138 turns labelled 1 (a feeling, a decision, a surprise: a turning
point) or 0 (thanks, acknowledgement, plain information, a question); even lines are the
development half, odd lines the held-out half; bench/data/fold-development.tsv, a second
batch written later to tune on, is all development. A turn is judged a turning point when
``extractive.turning`` gives it at least reflect.FOLD_AT, as the Fold does.
"""

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common  # noqa: E402
from bench.common import HALVES  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "fold.tsv"
DEVELOPMENT = DATA.with_name("fold-development.tsv")


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return [r for r in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE) if r and not r[0].startswith("#")]


def labelled(half: str) -> list[tuple[bool, str]]:
    rows = [(label == "1", text) for i, (label, text) in enumerate(_rows(DATA)) if i % 2 == HALVES.index(half)]
    return rows + ([(label == "1", text) for label, text in _rows(DEVELOPMENT)] if half == "dev" else [])


def measure(half: str) -> dict:
    from souveraine.inference import extractive
    from souveraine.tempos import reflect

    tp = fp = fn = 0
    errors = []
    for gold, text in labelled(half):
        said = extractive.turning(text) >= reflect.FOLD_AT
        tp, fp, fn = tp + (said and gold), fp + (said and not gold), fn + (gold and not said)
        if said != gold:
            errors.append((gold, round(extractive.turning(text), 2), text))
    return {"half": half, "turns": tp + fp + fn + sum(1 for g, t in labelled(half) if not g) - fp,
            "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0,
            "errors": errors}


def report(half: str, r: dict, show_errors: bool) -> None:
    print(f"{half:9} {len(labelled(half))} turns: turning points found with precision {r['precision']:.3f}, "
          f"recall {r['recall']:.3f}")
    if show_errors:
        for gold, score, text in r["errors"]:
            print(f"  {'missed' if gold else 'wrong '} {score:5}: {text}")


def main() -> None:
    common.halves_main(__doc__, measure, report)


if __name__ == "__main__":
    main()
