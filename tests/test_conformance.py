"""docs/CONFORMANCE.md cannot rot: every test it names exists, every module it names exists,
and every row names a test or says why there is none."""

import re

import pytest

from tests.support import ROOT

DOC = ROOT / "docs" / "CONFORMANCE.md"
TEST = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")
PATH = re.compile(r"`(souveraine/[\w/]+(?:\.py|/))")
REASONS = ("**not built**", "**by design**", "**departs**")


def rows() -> list[list[str]]:
    out = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith(("| § |", "|---")):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            out.append(cells)
    return out


ROWS = rows()


def test_the_table_is_whole():
    assert len(ROWS) >= 150
    assert all(len(cells) == 4 for cells in ROWS), [cells for cells in ROWS if len(cells) != 4][:3]


@pytest.mark.parametrize("cells", ROWS, ids=[f"{c[0]}:{n}" for n, c in enumerate(ROWS)])
def test_each_row_names_a_test_or_says_why_not(cells):
    shown = cells[3]
    assert TEST.search(shown) or shown.startswith(REASONS), f"row {cells[0]} names no test and no reason: {shown}"


def test_every_named_test_exists():
    missing = []
    for cells in ROWS:
        for path, name in TEST.findall(cells[3]):
            file = ROOT / path
            if not file.is_file() or not re.search(rf"^(?:async )?def {name}\(", file.read_text(encoding="utf-8"), re.MULTILINE):
                missing.append(f"{path}::{name}")
    assert missing == []


def test_every_named_module_exists():
    text = DOC.read_text(encoding="utf-8")
    assert [p for p in PATH.findall(text) if not (ROOT / p).exists()] == []
