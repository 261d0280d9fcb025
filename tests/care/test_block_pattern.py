"""Block ids are found as the first, unanchored pattern found them, on any text."""

import random
import re

import pytest

from souveraine.care import links

_FIRST = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
PIECES = ["^", "^t0900a1", "^x-1", " ", "\t", "\n", "\r\n", "a", "word", "^^", "-", "é", "[[a#^b]]", "^ab c", "  "]


@pytest.mark.parametrize("seed", range(20))
def test_the_block_pattern_finds_what_the_first_one_found(seed):
    rng = random.Random(seed)
    for _ in range(300):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        assert [m[1] for m in links._BLOCK.finditer(text)] == [m[1] for m in _FIRST.finditer(text)], repr(text)


def test_a_journal_turn_s_block_is_found():
    text = "## 09:00:00 · user · session `s1`\n\nGood morning.\n\n^t090000u1a2b\n\nA line ^end  \nnot^this\n"
    assert [m[1] for m in links._BLOCK.finditer(text)] == ["t090000u1a2b", "end"]
