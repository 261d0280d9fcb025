"""The journal's line reader against markdown-it: on generated and fuzzed days, the turns'
headings and block ids the line reader finds are exactly the ones CommonMark reads, and
every turn's text reads back as given."""

import random
import re
from datetime import date, datetime

import pytest

from souveraine.care import links
from souveraine.language import markdown
from souveraine.store import journal

DAY = date(2026, 11, 30)
PATH = journal.day_path(DAY)
LINES = [
    "What did I say about that book?", "", "", "- a list item", "  - nested", "1. first", "> a quote",
    "    indented code", "\tcode by tab", "---", "===", "***", "# a title", "## Plans", "#hashtag",
    "## 12:00:00 · user", "## 09:15:02 · assistant · session `abc`", "\\## 12:00:00 · user", "   ## 12:00:00 · tool",
    "## 12:00:00 · user ##", "##\t12:00:00 · reflection", "##  12:00:00 · user", "12:00:00 · user",
    "^t120000uabcd", "\\^t120000uabcd", "  ^abc", "text ending ^abc", "^", "^not an id",
    "```", "```python", "````", "~~~", "~~~ sh", "  ```", "    ```", "\\```", "``` `x` ```", "`code`",
    "<!--", "<!-- a comment -->", "-->", "<pre>", "</pre>", "<script>", "</script>", "<?php", "?>", "<!DOCTYPE x>",
    "<![CDATA[", "]]>", "<div>", "</div>", "<style>", "<textarea>", "[[people/ana|Ana]]", "\\", "\\\\", "Tomás & Inês",
    "see [[journal/2026/11/2026-11-30#^t1|then]] and [a](b.md)", "`[[code]]` [[x]]", "[text\nsplit](c.md)",
]
TITLE = r"\d\d:\d\d:\d\d · [a-z]+(?: · session `[^`\n]*`)?"      # docs/FORMATS.md
CHARS = "#`~^<>!-=*\\ \t:·a1[]|_\u00a0"


def _line(rng: random.Random) -> str:
    if rng.random() < 0.8:
        return rng.choice(LINES)
    return "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 12)))


def _body(rng: random.Random) -> str:
    return "\n".join(_line(rng) for _ in range(rng.randint(0, 9))).strip("\n")


def _markdown_reading(text: str) -> tuple[list[int], list[str]]:
    """The 1-based lines of the level-2 headings CommonMark reads whose text is a turn's, and the
    block ids of the paragraphs that are only one, at the top of the day."""
    tokens = markdown._parser().parse(text)
    headings, blocks = [], []
    for i, tok in enumerate(tokens):
        if tok.level != 0:
            continue
        content = tokens[i + 1].content if i + 1 < len(tokens) else ""
        if tok.type == "heading_open" and tok.markup == "##" and re.fullmatch(TITLE, content):
            headings.append(tok.map[0] + 1)
        elif tok.type == "paragraph_open" and re.fullmatch(r"\^[A-Za-z0-9-]+", content):
            blocks.append(content[1:])
    return headings, blocks


@pytest.mark.parametrize("seed", range(4))
def test_the_line_reader_and_commonmark_read_the_same_turns(seed):
    rng = random.Random(seed)
    for _ in range(60):
        text, taken, given = journal.header(DAY), set(), []
        for k in range(rng.randint(1, 6)):
            at = datetime(DAY.year, DAY.month, DAY.day, 8 + k, rng.randint(0, 59), rng.randint(0, 59))
            role, session, body = rng.choice(journal.ROLES), rng.choice([None, "abc", "a b"]), _body(rng)
            block = journal.block_id(at, role, body, session, taken)
            taken.add(block)
            text += journal.render(at, role, body, session, block)
            given.append(body)
        turns = journal.parse(text, PATH)
        headings, blocks = _markdown_reading(text)
        assert [t.line for t in turns] == headings, text
        assert [t.block_id for t in turns] == blocks, text
        assert journal.block_ids(text) == set(blocks)
        assert [t.text for t in turns] == given
        pieces = journal.regions(text)[1:]       # each turn's text alone reads as it does in the day
        assert [journal._unescape(text[a:b].strip("\n")) for a, b in pieces] == given
        assert links._find_in(PATH, text) == links.find(text)


def test_an_unclosed_fence_or_comment_in_a_turn_does_not_swallow_the_turns_after_it():
    text = journal.header(DAY)
    for n, body in enumerate(["Here:\n\n```python\ndef f():", "<!-- draft", "Still here?"]):
        at = datetime(2026, 11, 30, 10, 0, n)
        text += journal.render(at, "user", body, None, f"t10000{n}uaaaa")
    assert _markdown_reading(text)[1] == ["t100000uaaaa", "t100001uaaaa", "t100002uaaaa"]
    assert [t.text for t in journal.parse(text, PATH)] == ["Here:\n\n```python\ndef f():", "<!-- draft", "Still here?"]
    closed = journal.render(datetime(2026, 11, 30, 11, 0, 0), "user", "```\ncode\n```", None, "t110000uaaaa")
    assert "\n```\ncode\n```\n" in closed          # a fence that closes is written as it is


def test_a_turn_without_its_block_id_ends_at_the_next_heading_which_is_read():
    text = journal.header(DAY) + "\n## 10:00:00 · user\n\nHand-written, no id.\n" + journal.render(
        datetime(2026, 11, 30, 10, 0, 5), "assistant", "Answered.", None, "t100005aaaaa")
    assert [(t.role, t.text, t.block_id) for t in journal.parse(text, PATH)] == [
        ("user", "Hand-written, no id.", f"line{text.split(chr(10)).index('## 10:00:00 · user') + 1}"),
        ("assistant", "Answered.", "t100005aaaaa")]


def test_the_fence_pairing_on_write_agrees_with_the_parser():
    """persist pairs a turn's fences itself when they all start at the margin and no line
    starts with "<"; on generated texts its answer is markdown-it's."""
    rng = random.Random(7)
    fences = ["```", "```python", "````", "~~~", "~~~~ sh", "``` `x` ```", "  ```", "   ~~~", "\\```", "code", "", "- ```"]
    for _ in range(3000):
        lines = [rng.choice(fences) if rng.random() < 0.6 else _line(rng) for _ in range(rng.randint(1, 8))]
        body = "\n".join("\\" + line if journal._escaped(line, False) else line for line in lines)
        assert journal._leaves_open(body) == markdown.runs_on(body), body
