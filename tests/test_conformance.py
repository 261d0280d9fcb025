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


# Every numbered section of the two texts has at least one row; every number they state is in the table.
SECTIONS = ["Preamble", "I.1", "I.2", "I.3", "II.1", "II.2", "II.3", "III.1", "III.2", "III.3", "IV.1", "IV.2", "IV.3",
            "IV.4", "V.1", "V.2", "V.3", "VI.1", "VI.2", "VI.3", "VI.4", *(f"Law {n}" for n in range(1, 11)),
            "VIII.1", "VIII.2", "VIII.3", "VIII.4", "VIII.5", "IX.1", "IX.2", "IX.3", "IX.4", "IX.5", "IX.6", "IX.7",
            "IX.8", "IX.9", "Appendix", "Closing",
            "Tiers", "Episodic", "Foundational", "Constitutive", "Mutation", "Legacy", "Composition", "Traceable",
            "Bytes", "Elevate", "Witness later", "Federated", "Marketplace", "Wake", "Events", "Surfaces", "Limits"]
NUMBERS = ["**25**", "**100**", "**70%**", "**15k**", "**30**", "**max 2 retries**", "128000 / 0.7 / 100",
           "32768 / 0.6 / 50", '"0 9 * * 1"', "WORK, DOC-QUERY, CODE-QUERY, STATUS, CLARIFY",
           "INIT, ORIENT, DEVELOP, REVIEW, UPDATE-DOCS, REPORT", "the Fold, the Chain, the Flame, the Anchor",
           "memory-attestation/v1", "1–2 lines", "20-line index", "`attester_self_witness_forbidden`", "`409 paid_memory_receipt_preserved`"]


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_of_the_texts_has_a_row(section):
    assert any(c[0] == section or c[0].startswith((section + ".", section + " ")) for c in ROWS), section


def test_every_number_the_texts_state_is_in_the_table():
    text = DOC.read_text(encoding="utf-8")
    assert [n for n in NUMBERS if n not in text] == []
