"""Distilled lines keep their facts: the planted facts through ``language.distil``, per half.

Usage: python bench/distil.py [--half dev|held-out|both|batch] [--show-losses]

Each of bench/data/planted_facts.tsv's 209 facts (halves by line, as bench/synthesis.py
splits them) is one turn said at 2026-11-30 14:00 by its role; its line is distilled as
the digest and the people notes write it, about the first person the sentence names (else
about nothing). A fact is kept when every one of its keys is in the line — or, for a key
that is a date phrase ("Friday", "tomorrow"), the absolute date it means. Beside it, in
the same run, the sentence as written (what the lines were before distillation). Also: the mean length, and how many lines still say "I".

``batch`` is bench/data/distil-development.tsv, a development batch written later (turns as
people send them: long, texted, several facts to a message), measured with the development
half and never a held-out figure; ``both`` runs the two halves and the batch.
"""

import argparse
import re
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthesis import HALVES, Fact, planted, rows  # noqa: E402

AT = datetime(2026, 11, 30, 14, 0)
BATCH = "batch"


def facts_of(half: str) -> list[Fact]:
    if half == BATCH:
        return [Fact(role, [k.strip() for k in keys.split("|")], text) for role, keys, text in rows("distil-development.tsv")]
    return planted(half)


def _kept(line: str, keys: list[str]) -> bool:
    from souveraine.language import dates

    folded = line.casefold()
    for key in keys:
        if key.casefold() in folded:
            continue
        meant = dates.resolve(key, AT)
        if meant is None or not any(form in line for form in _forms(meant)):
            return False
    return True


def _forms(meant) -> list[str]:
    """How a distilled line may say the date a key means: its day, its time, or distil's words for it."""
    from souveraine.language import distil

    return [meant.day.isoformat(), distil._when(meant), *([f"{meant.begins:%H:%M}"] if meant.timed else [])]


def _about(text: str) -> str:
    from souveraine.language import names

    found = names.people(text)
    return found[0].name if found else ""


def _as_copied(text: str, about: str) -> str:
    """The line before distillation: the journal's sentence as written."""
    return " ".join(text.split())


def measure(half: str) -> dict:
    from souveraine.language import distil

    facts = facts_of(half)
    result = {"half": half, "facts": len(facts), "losses": []}
    for method in ("copied", "distilled"):
        kept = length = first_person = 0
        for fact in facts:
            about = _about(fact.text)
            line = (distil.line(fact.text, role=fact.role, at=AT, about=about) if method == "distilled"
                    else _as_copied(fact.text, about))
            if _kept(line, fact.keys):
                kept += 1
            elif method == "distilled":
                result["losses"].append((fact.keys, fact.text, line))
            length += len(line)
            first_person += bool(re.search(r"(?<![\w'])(?:I|my|me)(?![\w'])", line))
        result[method] = {"kept": kept, "share": kept / len(facts), "mean_chars": length / len(facts),
                          "first_person": first_person}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=(*HALVES, "both", BATCH), default="both")
    parser.add_argument("--show-losses", action="store_true", help="print the lost facts of the development data")
    args = parser.parse_args()
    for half in (*HALVES, BATCH) if args.half == "both" else (args.half,):
        r = measure(half)
        for method in ("copied", "distilled"):
            m = r[method]
            print(f"{half:9} {method:9} {m['kept']:3}/{r['facts']} facts kept ({100 * m['share']:.1f} %), "
                  f"mean {m['mean_chars']:.0f} characters, {m['first_person']} lines still in the first person")
        if args.show_losses and half in ("dev", BATCH):
            for keys, text, line in r["losses"]:
                print(f"  lost {keys}: {text}\n    → {line}")


if __name__ == "__main__":
    main()
