"""Make souveraine/language/data/inflections.txt.gz: the English word forms Porter stemming does not join.

Usage (once, when the source changes; the output is committed):

    pip download --no-deps lemminflect==0.2.3 && unzip lemminflect-*.whl -d lemminflect
    python tools/inflections_data.py lemminflect/lemminflect/resources/infl_lu.csv.gz

The source is LemmInflect's table of every verb's and noun's forms (MIT). The index stems
with SQLite's Porter stemmer, which joins "buys" and "buying" to "buy" but not "bought", nor
"went" to "go", nor "children" to "child". Each line of the output is one lower-case verb or
noun: its forms grouped by the Porter stem SQLite gives them (groups separated by a tab,
forms within a group by a space), only where there is more than one group:
``buy buying buys<TAB>bought``.
"""

import argparse
import csv
import gzip
import sqlite3
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "souveraine" / "language" / "data" / "inflections.txt.gz"


def forms(source: Path) -> list[list[str]]:
    """Each lower-case verb's and noun's forms, the lemma first."""
    out = []
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        for lemma, pos, *inflected in csv.reader(handle):
            if pos not in ("verb", "noun") or not (lemma.isalpha() and lemma.islower()):
                continue
            words = [lemma, *(w for form in inflected for w in form.split("/"))]
            out.append(list(dict.fromkeys(w for w in words if w.isalpha() and w.islower())))
    return out


def stems(words: set[str]) -> dict[str, str]:
    """Each word's stem as SQLite's FTS5 ``porter`` tokenizer makes it."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(w, tokenize='porter unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    ordered = sorted(words)
    conn.executemany("INSERT INTO t(rowid, w) VALUES (?, ?)", enumerate(ordered, 1))
    return {ordered[doc - 1]: term for term, doc in conn.execute("SELECT term, doc FROM v")}


def lines(groups: list[list[str]]) -> list[str]:
    stem = stems({w for words in groups for w in words})
    out = set()
    for words in groups:
        classes: dict[str, list[str]] = {}
        for word in words:
            classes.setdefault(stem[word], []).append(word)
        if len(classes) > 1:
            out.add("\t".join(" ".join(c) for c in classes.values()))
    return sorted(out)


def write(path: Path, rows: list[str]) -> None:
    # mtime=0 keeps the file the same bytes when its content is, so a rerun makes no diff
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as handle:
        handle.write(("\n".join(rows) + "\n").encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="LemmInflect's resources/infl_lu.csv.gz")
    rows = lines(forms(parser.parse_args().source))
    write(OUT, rows)
    print(f"{len(rows)} words whose forms Porter stems apart")


if __name__ == "__main__":
    main()
