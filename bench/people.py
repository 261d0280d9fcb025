"""Person detection (souveraine.language.names) on a labelled set: precision and recall per half.

Usage: python bench/people.py [--half dev|held-out|both] [--show-errors]

bench/data/people.tsv: one turn a line with the people it names (322 mentions in 317
turns, non-ASCII names among them, and turns whose capitals name no one: places, products,
sentence openers). Lines alternate between the development half (even) and the held-out
half (odd). bench/data/people-development.tsv, a second batch written later to tune on
(products, songs, books, places and greetings that hold given names; titles such as
"Dona"), is all development. A found person is right when its name is one the line lists
(any case).
Targets: precision ≥ 0.95, recall ≥ 0.90 on each half.
"""

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common  # noqa: E402
from bench.common import HALVES  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "people.tsv"
DEVELOPMENT = DATA.with_name("people-development.tsv")


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return [r for r in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE) if r and not r[0].startswith("#")]


def labelled(half: str) -> list[tuple[list[str], str]]:
    pick = HALVES.index(half)
    rows = [row for i, row in enumerate(_rows(DATA)) if i % 2 == pick] + (_rows(DEVELOPMENT) if half == "dev" else [])
    return [([n for n in gold.split("|") if n], text) for gold, text in rows]


def measure(half: str) -> dict:
    from souveraine.language import names

    right = found = expected = 0
    errors = []
    for gold, text in labelled(half):
        want = {g.casefold() for g in gold}
        got = {p.name.casefold() for p in names.people(text)}
        right += len(want & got)
        found += len(got)
        expected += len(want)
        if want != got:
            errors.append((text, sorted(want - got), sorted(got - want)))
    return {"half": half, "mentions": expected, "found": found, "right": right,
            "precision": right / found if found else 1.0, "recall": right / expected if expected else 1.0, "errors": errors}


def report(half: str, r: dict, show_errors: bool) -> None:
    print(f"{half:9} {r['mentions']} mentions: precision {r['precision']:.3f} ({r['right']}/{r['found']}), "
          f"recall {r['recall']:.3f} ({r['right']}/{r['mentions']})")
    if show_errors:
        for text, missed, wrong in r["errors"]:
            print(f"  missed {missed} wrong {wrong}: {text}")


def main() -> None:
    common.halves_main(__doc__, measure, report)


if __name__ == "__main__":
    main()
