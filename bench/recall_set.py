"""The written conversations of bench/recall_set/ and the questions about them: how often recall
finds the evidence, per category, beside plain BM25 over the same turns in the same run.

    python bench/recall_set.py [--split dev|held-out|all] [--json] [--failures] [--write]

``--write`` puts the table of both halves into docs/QUALITY.md, between its
``recall_set`` markers, so the document holds what the last full run measured.

Each file of bench/recall_set/ is one long conversation between two speakers over months,
written to read like real chat, with the turns that answer a question labelled ``{label}``
and its questions at the end. Every conversation goes into its own memory's journal as
persist writes it; every question is asked through ``recall(limit=10)``. A question's
recall@k is the share of its evidence turns among the first k hits (a list question has
several); a category's figure is the mean over its questions.

The conversations are split once, by the ``split:`` line each file carries: ``dev`` (tune on
these, read their failures) and ``held-out`` (report only; ``--failures`` refuses them). The
rule, fixed before any run and applied to each file as it is written: an odd-numbered file is
``dev``, an even-numbered one ``held-out`` (``load`` refuses a file that breaks it).

File format::

    title: …
    split: dev | held-out
    == 2023-03-04 19:12            a session: its start (turns follow about a minute apart)
    U: the user's turn             U/A: the two speakers (journal roles user, assistant)
    A: the answer {label}          labels name evidence turns
    ?? category | the question | label label …
"""

import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.conversations import Line, day_texts  # noqa: E402
from souveraine.recall import index, rank  # noqa: E402
from souveraine.recall.search import recall  # noqa: E402
from souveraine.store.memory import Memory  # noqa: E402

FOLDER = Path(__file__).resolve().parent / "recall_set"
DOC = Path(__file__).resolve().parent.parent / "docs" / "QUALITY.md"
MARKERS = ("<!-- recall_set: written by bench/recall_set.py --write -->", "<!-- recall_set: end -->")
CATEGORIES = ("answer", "paraphrase", "date", "list")
ROLES = {"U": "user", "A": "assistant"}
_LABELS = re.compile(r"\s*\{([^{}]+)\}\s*$")
EQUAL = {"title": 1.0, "body": 1.0, "context": 1.0, "links": 1.0}


@dataclass(frozen=True)
class Question:
    category: str
    text: str
    labels: tuple[str, ...]


@dataclass
class Conversation:
    name: str
    split: str
    lines: list[Line] = field(default_factory=list)
    labels: dict[str, list[int]] = field(default_factory=dict)      # label -> indexes into lines
    questions: list[Question] = field(default_factory=list)

    @property
    def end(self) -> datetime:
        return max(line.at for line in self.lines)


@dataclass(frozen=True)
class Variant:
    name: str
    options: index.Options = index.Options()
    ranking: dict = field(default_factory=dict)     # Ranking fields changed
    recency: bool = True
    date_phrases: bool = True
    semantic: str = ""          # with sentence vectors: the encoder's name (encoders.ENCODERS)


SHIPPED = Variant("words only")
PLAIN = Variant("plain BM25", index.Options("unicode61 remove_diacritics 2", "none"),
                {"weights": EQUAL, "date_weight": 0.0, "answer_share": 0.0, "diversity": 0.0,
                "speaker_weight": 0.0, "inflections": False, "prompt_share": 0.0, "asking": 1.0, "kind_weight": 0.0}, False, False)
TRIED = [
    replace(SHIPPED, name="  no answer inheritance", ranking={"answer_share": 0.0}),
    replace(SHIPPED, name="  answer share 1.0", ranking={"answer_share": 1.0}),
    replace(SHIPPED, name="  no diversity", ranking={"diversity": 0.0}),
    replace(SHIPPED, name="  diversity 0.6", ranking={"diversity": 0.6}),
    replace(SHIPPED, name="  date weight 0 (dates ignored)", ranking={"date_weight": 0.0}),
    replace(SHIPPED, name="  date weight 5", ranking={"date_weight": 5.0}),
    replace(SHIPPED, name="  no context column", options=index.Options(context="none")),
    replace(SHIPPED, name="  recency off", recency=False),
    replace(SHIPPED, name="  every reply inherits (not only to questions)", ranking={"answers_asked": False}),
    replace(SHIPPED, name="  answer share 0.75", ranking={"answer_share": 0.75}),
    replace(SHIPPED, name="  diversity by conversation only", ranking={"diversity_words": 0.0}),
    replace(SHIPPED, name="  no period as evidence", ranking={"period_floor": 0.0}),
    replace(SHIPPED, name="  period floor 0.6", ranking={"period_floor": 0.6}),
    replace(SHIPPED, name="  speakers' names searched as words", ranking={"speaker_weight": 0.0}),
    replace(SHIPPED, name="  no inflections (bought ≠ buy)", ranking={"inflections": False}),
    replace(SHIPPED, name="  no inheritance from the reply", ranking={"prompt_share": 0.0}),
    replace(SHIPPED, name="  reply share 1.0", ranking={"prompt_share": 1.0}),
    replace(SHIPPED, name="  asking turns at full score", ranking={"asking": 1.0}),
    replace(SHIPPED, name="  asking turns at 0.3", ranking={"asking": 0.3}),
    replace(SHIPPED, name="  who/where not matched to names", ranking={"kind_weight": 0.0}),
]
SEMANTIC = replace(SHIPPED, name="static vectors (default)", semantic="static")
MINILM = replace(SHIPPED, name="MiniLM vectors (semantic extra)", semantic="minilm")
SEMANTIC_TRIED = [
    replace(SEMANTIC, name="  semantic weight 0.5", ranking={"semantic_weight": 0.5}),
    replace(SEMANTIC, name="  semantic weight 2", ranking={"semantic_weight": 2.0}),
    replace(SEMANTIC, name="  semantic depth 10", ranking={"semantic_depth": 10}),
    replace(SEMANTIC, name="  semantic depth 30", ranking={"semantic_depth": 30}),
    replace(SEMANTIC, name="  semantic depth 120", ranking={"semantic_depth": 120}),
    replace(SEMANTIC, name="  diversity without vectors", ranking={"semantic_diversity": 0.0}),
    replace(SEMANTIC, name="  no more-like-these", ranking={"semantic_more": 0.0}),
    replace(SEMANTIC, name="  more-like-these 1.0", ranking={"semantic_more": 1.0}),
    replace(MINILM, name="  MiniLM, no more-like-these", ranking={"semantic_more": 0.0}),
]
VECTORS = Path(tempfile.gettempdir()) / "souveraine-recall-set-vectors.sqlite"  # a cache: keyed by text


def load(path: Path) -> Conversation:
    """One conversation file; its turns timed from their session's start."""
    conversation = Conversation(path.stem, "")
    session, at, n = None, None, 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("split:"):
            conversation.split = line.split(":", 1)[1].strip()
        elif line.startswith(("title:", "user:", "assistant:")):
            continue
        elif line.startswith("=="):
            at = datetime.fromisoformat(line[2:].strip().replace(" ", "T"))
            n += 1
            session = f"{path.stem[:2]}s{n:02d}"
        elif line.startswith("??"):
            category, text, labels = (part.strip() for part in line[2:].split("|"))
            if category not in CATEGORIES:
                raise ValueError(f"{path.name}:{number}: unknown category {category!r}")
            conversation.questions.append(Question(category, text, tuple(labels.split())))
        elif line[:2] in ("U:", "A:"):
            if at is None:
                raise ValueError(f"{path.name}:{number}: a turn before any session")
            text, labels = line[2:].strip(), ()
            found = _LABELS.search(text)
            if found:
                text, labels = text[:found.start()], found[1].split()
            at += timedelta(seconds=35 + int(hashlib.sha1(text.encode()).hexdigest()[:4], 16) % 90)
            conversation.lines.append(Line(at, ROLES[line[0]], text, session))
            for label in labels:
                conversation.labels.setdefault(label, []).append(len(conversation.lines) - 1)
        else:
            raise ValueError(f"{path.name}:{number}: not a turn, session or question: {line[:40]!r}")
    for question in conversation.questions:
        missing = [label for label in question.labels if label not in conversation.labels]
        if missing:
            raise ValueError(f"{path.name}: question {question.text!r} names no turn labelled {missing}")
    if conversation.split != _split_of(path):
        raise ValueError(f"{path.name}: split must be {_split_of(path)} (odd-numbered files dev, even held-out)")
    return conversation


def _split_of(path: Path) -> str:
    return "dev" if int(path.name.split("-", 1)[0]) % 2 else "held-out"


def conversations(split: str = "all") -> list[Conversation]:
    found = [load(p) for p in sorted(FOLDER.glob("*.txt"))]
    return [c for c in found if split == "all" or c.split == split]


def ingest(memory: Memory, conversation: Conversation) -> dict[str, list[tuple[str, str]]]:
    """The turns in the journal, as persist writes them, in one commit; each label's (path, block)s."""
    texts, placed = day_texts(conversation.lines)
    with memory.change("chore(journal): a written conversation") as change:
        for rel, text in texts.items():
            change.write(rel, text)
    return {label: [placed[i] for i in where] for label, where in conversation.labels.items()}


def prepare(root: Path, conversation: Conversation) -> tuple[Memory, dict]:
    from souveraine.bootstrap import init

    os.environ["SOUVERAINE_NOW"] = (conversation.end + timedelta(hours=1)).isoformat()
    memory = Memory(init(root, identity="ada").root)
    return memory, ingest(memory, conversation)


def ask(memory: Memory, conversation: Conversation, targets: dict, variant: Variant) -> list[dict]:
    """Each question's evidence found at 5 and 10, and whether anything was found at all."""
    now = (conversation.end + timedelta(hours=1)).astimezone()
    ranking = rank.Ranking(now.timestamp(), recency=variant.recency, **variant.ranking)
    out = []
    for question in conversation.questions:
        evidence = {target for label in question.labels for target in targets[label]}
        hits = recall(memory, question.text, limit=10, recency=variant.recency, date_phrases=variant.date_phrases,
                      ranking=ranking, semantic=_matcher(variant.semantic) if variant.semantic else False).hits
        ranks = [n for n, hit in enumerate(hits, 1) if (hit.path, hit.block) in evidence]
        out.append({"conversation": conversation.name, "category": question.category, "question": question.text,
                    "evidence": len(evidence), "hits": len(hits),
                    "r5": sum(1 for r in ranks if r <= 5) / len(evidence),
                    "r10": sum(1 for r in ranks if r <= 10) / len(evidence), "ranks": ranks})
    return out


def _matcher(name: str):
    from souveraine.recall import encoders, semantic

    return semantic.Matcher(VECTORS, which=encoders.ENCODERS[name])


def run(selected: list[Conversation], variants: list[Variant], progress=None) -> dict[str, list[dict]]:
    results: dict[str, list[dict]] = {v.name: [] for v in variants}
    for n, conversation in enumerate(selected, 1):
        with tempfile.TemporaryDirectory() as tmp:
            memory, targets = prepare(Path(tmp) / "memory", conversation)
            for variant in variants:
                index.rebuild(memory, variant.options)
                results[variant.name] += ask(memory, conversation, targets, variant)
        if progress:
            progress(n, len(selected))
    return results


def summary(rows: list[dict]) -> dict:
    """R@5 and R@10 per category and overall (means over questions)."""
    out = {}
    for category in (*CATEGORIES, "all"):
        chosen = [r for r in rows if category in ("all", r["category"])]
        if chosen:
            out[category] = {"questions": len(chosen), "r5": round(statistics.mean(r["r5"] for r in chosen), 3),
                             "r10": round(statistics.mean(r["r10"] for r in chosen), 3)}
    return out


def lost(shipped: list[dict], plain: list[dict]) -> list[dict]:
    """Questions recall answers with nothing where plain BM25 finds evidence."""
    return [s for s, p in zip(shipped, plain) if s["hits"] == 0 and p["r10"] > 0]


def table(report: dict) -> str:
    """Both halves per category, BM25 beside recall, as the Markdown docs/QUALITY.md shows."""
    shown = [v for v in (SHIPPED, SEMANTIC, MINILM) if all(v.name in data["variants"] for data in report.values())]
    heads = {SHIPPED.name: "words only", SEMANTIC.name: "static vectors", MINILM.name: "MiniLM"}
    extra = "".join(f" {heads[v.name]} R@5 | {heads[v.name]} R@10 | ÷ BM25 |" for v in shown)
    rows = [f"| half | category | questions | BM25 R@5 | BM25 R@10 |{extra}",
            "|---|---|---|---|---|" + "---|---|---|" * len(shown)]
    for split, data in report.items():
        plain, shipped = data["variants"][PLAIN.name], data["variants"][SHIPPED.name]
        for category, figures in shipped.items():
            base = plain[category]
            row = f"| {split} | {category} | {figures['questions']} | {base['r5']:.3f} | {base['r10']:.3f}"
            for name in (v.name for v in shown):
                got = data["variants"][name][category]
                ratio = f"{got['r10'] / base['r10']:.2f}" if base["r10"] else "—"
                row += f" | {got['r5']:.3f} | {got['r10']:.3f} | {ratio}"
            rows.append(row + " |")
    sizes = "; ".join(f"{split}: {data['conversations']} conversations, {data['turns']:,} turns,"
                      f" {data['variants'][SHIPPED.name]['all']['questions']} questions,"
                      f" {data['lost']} left with no hit where BM25 finds evidence"
                      + (f" ({data['lost with vectors']} with vectors)" if data.get("lost with vectors") is not None else "")
                      for split, data in report.items())
    return "\n".join(rows) + f"\n\n{sizes}.\n"


def write(report: dict, doc: Path = DOC) -> None:
    """The table between the markers of ``doc``, written atomically."""
    text = doc.read_text(encoding="utf-8")
    start, end = (text.index(m) for m in MARKERS)
    new = f"{text[:start]}{MARKERS[0]}\n{table(report)}{text[end:]}"
    temp = doc.with_suffix(".tmp")
    temp.write_text(new, encoding="utf-8")
    temp.replace(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", choices=("dev", "held-out", "all"))
    parser.add_argument("--variants", action="store_true", help="also the shipped ranking with one thing changed")
    parser.add_argument("--only", metavar="WORDS", help="with --variants: only the variants whose name holds WORDS")
    parser.add_argument("--no-semantic", dest="semantic", action="store_false",
                        help="leave out the rankings with sentence vectors")
    parser.add_argument("--failures", action="store_true", help="print the dev questions whose evidence is missed")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", action="store_true", help=f"put both halves' table into {DOC.name}")
    args = parser.parse_args()
    if args.write and args.split != "all":
        raise SystemExit("--write needs both halves: leave out --split")
    if args.failures and args.split != "dev":
        raise SystemExit("--failures reads the dev half only: the held-out half is not for tuning")
    from souveraine.recall import encoders

    encoded = [v for v in (SEMANTIC, MINILM) if args.semantic and encoders.ENCODERS[v.semantic].available()]
    for v in (SEMANTIC, MINILM):
        if args.semantic and v not in encoded:
            print(f"(no figures {v.name}: {encoders.ENCODERS[v.semantic].install})", file=sys.stderr)
    tried = [*TRIED, *(SEMANTIC_TRIED if SEMANTIC in encoded else [])] if args.variants else []
    variants = [PLAIN, SHIPPED, *encoded, *(v for v in tried if not args.only or args.only in v.name)]
    report = {}
    for split in (("dev", "held-out") if args.split == "all" else (args.split,)):
        selected = conversations(split)
        results = run(selected, variants, lambda n, t: print(f"  {split}: {n}/{t}", file=sys.stderr, end="\r"))
        report[split] = {"conversations": len(selected), "turns": sum(len(c.lines) for c in selected),
                         "variants": {name: summary(rows) for name, rows in results.items()},
                         "lost": len(lost(results[SHIPPED.name], results[PLAIN.name])),
                         "lost with vectors": len(lost(results[SEMANTIC.name], results[PLAIN.name]))
                         if SEMANTIC.name in results else None}
        if args.failures:
            for row in results[SHIPPED.name]:
                if row["r10"] < 1:
                    print(f"[{row['category']}] {row['question']}  ranks={row['ranks']} of {row['evidence']}")
    if args.write:
        write(report)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for split, data in report.items():
        print(f"\n{split}: {data['conversations']} conversations, {data['turns']} turns;"
              f" zero-hit questions where BM25 finds evidence: {data['lost']}"
              + (f" ({data['lost with vectors']} with vectors)" if data.get("lost with vectors") is not None else ""))
        print(f"{'variant':<34} {'category':<11} {'n':>4} {'R@5':>6} {'R@10':>6}")
        for name, cats in data["variants"].items():
            for category, figures in cats.items():
                print(f"{name:<34} {category:<11} {figures['questions']:>4} {figures['r5']:>6.3f} {figures['r10']:>6.3f}")


if __name__ == "__main__":
    main()
