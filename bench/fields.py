"""Recurring fields (souveraine.care.fields) on the written conversations: precision and recall per half.

Usage: python bench/fields.py [--half dev|held-out|both] [--show-errors]

The twenty conversations of bench/recall_set/ (a nurse, a gardener, a backend developer, a
baker, a cyclist, a vet, a choir leader, a marine biologist, a rancher, a taxi driver
learning English…; 300 turns or more over eight to twenty-two months each) split as that set
splits them: odd-numbered files are the development half, even-numbered the held-out half.
bench/data/domains.tsv names, for each, the fields it keeps returning to (each with the
words that name it: "cycling/bike/ride/training…") and fields that are acceptable but not
required, labelled from the conversations before any detector ran; bench/data/domains-development/
(six shorter conversations written later, labelled in its labels.tsv before the detector read
them) is development too, and its figures are printed apart. The detector reads every
turn of a conversation and names at most three fields. A named field is right when its name
(or one of its forms) is one of a labelled field's words; precision is over the fields
named, recall over the required fields.
"""

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common  # noqa: E402
from bench.common import HALVES  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "domains.tsv"
# A second development batch: shorter conversations (a beekeeper, a plumber, a climber…), written later to tune on.
DEVELOPMENT = DATA.with_name("domains-development")


def labels(path: Path = DATA) -> dict[str, tuple[list[set[str]], list[set[str]]]]:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.reader(handle, delimiter="\t") if r and not r[0].startswith("#")]
    parse = lambda text: [{w.strip().casefold() for w in part.split("/") if w.strip()}
                          for part in text.split(";") if part.strip()]
    return {name: (parse(required), parse(acceptable)) for name, required, acceptable, *_ in
            [r + [""] * (3 - len(r)) for r in rows]}


def turns_of(conversation):
    from souveraine.store.journal import Turn

    return [Turn(f"t{i}", line.at, line.role, line.session, line.text, f"journal/{line.at:%Y/%m/%Y-%m-%d}.md")
            for i, line in enumerate(conversation.lines)]


def _matches(found, words: set[str]) -> bool:
    return found.key in words or found.name in words or any(form in words for form in found.forms)


def labelled(half: str) -> list[tuple[object, tuple[list[set[str]], list[set[str]]], str]]:
    """(conversation, its labels, its batch) of a half: the written set's half, and for the
    development half the later batch too."""
    from bench import recall_set

    gold = labels()
    out = [(c, gold[c.name + ".txt"], "first") for c in recall_set.conversations(half)]
    if half == "dev" and DEVELOPMENT.is_dir():
        later = labels(DEVELOPMENT / "labels.tsv")
        out += [(recall_set.load(p), later[p.name], "second") for p in sorted(DEVELOPMENT.glob("*.txt"))]
    return out


def measure(half: str) -> dict:
    from souveraine.care import fields

    right = named = required = found_required = 0
    errors = []
    batches: dict[str, list[int]] = {}
    for conversation, (need, fine), batch in labelled(half):
        got = fields.recurring(turns_of(conversation))
        wrong = [f.name for f in got if not any(_matches(f, words) for words in need + fine)]
        hit = [words for words in need if any(_matches(f, words) for f in got)]
        right += len(got) - len(wrong)
        named += len(got)
        required += len(need)
        found_required += len(hit)
        tally = batches.setdefault(batch, [0, 0, 0, 0])
        for n, value in enumerate((len(got) - len(wrong), len(got), len(hit), len(need))):
            tally[n] += value
        errors.append((conversation.name, [f"{f.name} ({len(f.days)}/{len({t.day for t in turns_of(conversation)})})" for f in got], wrong,
                       [sorted(w)[0] for w in need if w not in hit]))
    return {"half": half, "conversations": len(errors), "named": named, "right": right,
            "precision": right / named if named else 1.0,
            "recall": found_required / required if required else 1.0, "required": required,
            "found": found_required, "errors": errors, "batches": batches}


def report(half: str, r: dict, show_errors: bool) -> None:
    print(f"{half:9} {r['conversations']} conversations: {r['named']} fields named, precision "
          f"{r['precision']:.3f} ({r['right']}/{r['named']}), recall {r['recall']:.3f} ({r['found']}/{r['required']})")
    if len(r["batches"]) > 1:
        for batch, (right, named, found, required) in r["batches"].items():
            print(f"  {batch} batch: precision {right / named if named else 1:.3f} ({right}/{named}), "
                  f"recall {found / required if required else 1:.3f} ({found}/{required})")
    if show_errors:
        for name, got, wrong, missed in r["errors"]:
            print(f"  {name}: {got} wrong {wrong} missed {missed}")


def main() -> None:
    common.halves_main(__doc__, measure, report, "print the development half's fields")


if __name__ == "__main__":
    main()
