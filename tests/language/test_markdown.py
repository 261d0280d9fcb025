"""Markdown structure by markdown-it: a fenced example is never a heading, an item or a link."""

from souveraine.language import markdown

NOTE = """# Essence

Intro with [[people/ines|Inês]].

```markdown
## Not a section
- not an item [[nowhere]]
```

## Decisions

- We chose Hetzner ([[journal/2026/11/2026-11-29#^t092100a1b2c]])
  - a nested point
- Second ^b2

## Names

Inês · Tomás
"""


def test_headings_sections_and_items_skip_code():
    assert [(h.level, h.text) for h in markdown.headings(NOTE)] == [(1, "Essence"), (2, "Decisions"), (2, "Names")]
    assert markdown.title(NOTE) == "Essence"
    decisions = next(s for s in markdown.sections(NOTE) if s.heading and s.heading.text == "Decisions")
    assert decisions.heading.text == "Decisions" and NOTE.splitlines()[decisions.start - 1] == "## Decisions"
    assert [i.text for i in markdown.items(NOTE)] == [
        "We chose Hetzner ([[journal/2026/11/2026-11-29#^t092100a1b2c]])", "a nested point", "Second ^b2"]


def test_wikilinks_and_block_ids_come_from_prose_only():
    links = markdown.wikilinks(NOTE)
    assert [(l.target, l.anchor, l.alias) for l in links] == [
        ("people/ines", None, "Inês"), ("journal/2026/11/2026-11-29", "^t092100a1b2c", None)]
    assert [b for b, _ in markdown.block_ids(NOTE)] == ["b2"]


def test_links_carry_offsets_and_honour_code_escapes_aliases_anchors_and_embeds():
    text = "A [[a|Al]], `[[code]]`, \\[[esc]], [[b#Head]], [[c#^blk]], ![[d.png]] and [e](e%20f.md#top).\n"
    found = markdown.links(text)
    assert [(l.kind, l.target, l.anchor, l.alias, l.embed) for l in found] == [
        ("wiki", "a", None, "Al", False), ("wiki", "b", "Head", None, False), ("wiki", "c", "^blk", None, False),
        ("wiki", "d.png", None, None, True), ("markdown", "e f.md", "top", "e", False)]
    assert [text[l.start:l.end] for l in found] == ["[[a|Al]]", "[[b#Head]]", "[[c#^blk]]", "![[d.png]]",
                                                    "[e](e%20f.md#top)"]


def test_the_front_matter_shortcut_agrees_with_the_parser():
    """links() reads a note whose only links are in its front matter without parsing it: on
    generated notes, its answer is the parser's."""
    import random

    rng = random.Random(20)
    rows = ["---", "----", "--", "...", "  ---", "    ---", "\t---", "--- x", "a: '[[x|y]]'", "b: [[z#^t1]]",
            "c: 1", "", "# T", "body [[q]]", "- [k](k.md)", "text", "```", "    [[code]]"]
    for _ in range(3000):
        text = "\n".join(rng.choice(rows) for _ in range(rng.randint(1, 8)))
        text = "---\n" + text if rng.random() < 0.6 else text
        starts, parsed = markdown._line_starts(text), []
        for tok in markdown._tokens(text):
            if tok.type == "front_matter":
                parsed += markdown._front_matter_links(text, starts[tok.map[0] + 1], starts[tok.map[1] - 1])
            elif tok.type == "inline" and tok.map:
                parsed += markdown._inline_links(text, starts, tok)
        assert markdown.links(text) == parsed, text


def test_demote_shifts_atx_and_setext_headings_never_code():
    assert markdown.demote("Title\n=====\n\n```\n# code\n```\n> ## Quoted\n", 1) == "## Title\n\n```\n# code\n```\n> ### Quoted\n"


def test_blocks_keep_a_fence_and_a_list_item_whole_and_lose_nothing():
    text = ("# Title\nSaid under it.\n\n- spelt\n\n- rye\n  more rye\n\n```py\nx = 1\n\ny = 2\n```\n\n"
            "> quoted\n\n[ref]: https://example.org\n\nLast.")
    assert markdown.blocks(text) == ["# Title", "Said under it.", "- spelt", "- rye\n  more rye",
                                     "```py\nx = 1\n\ny = 2\n```", "> quoted", "[ref]: https://example.org", "Last."]


def _project_notes():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return sorted([*root.glob("memory/**/*.md"), *root.glob("docs/*.md"), *root.glob("skills/*/SKILL.md"), root / "README.md"])


def test_blocks_agree_with_blank_line_splitting_on_the_project_notes_where_they_should():
    # The pattern the blocks replace: text between blank lines. Every block of prose it found
    # (no heading, list, quote, code or table line) is a block here too; everywhere, the
    # blocks hold every line the pattern did, in order.
    import re

    structure = re.compile(r"\s*(?:[#>`~*+|<-]|\d+[.)]\s|\[[^\]]+\]:)|    |-{3,}\s*$|={3,}\s*$")
    agreed = 0
    for path in _project_notes():
        text = path.read_text(encoding="utf-8")
        old = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
        new = markdown.blocks(text)
        lines = lambda blocks: [line.strip() for block in blocks for line in block.split("\n") if line.strip()]
        assert lines(new) == lines(old), path.name
        rows = text.split("\n")
        fenced = {rows[n].strip() for n in markdown.code_lines(text)}
        prose = [b for b in old if not any(structure.match(line) for line in b.split("\n"))
                 and b.split("\n")[0] not in fenced]
        assert [b for b in prose if b not in new] == [], path.name
        agreed += len(prose)
    assert agreed >= 150


def test_fences_paired_without_the_parser_are_those_commonmark_reads():
    import random

    pool = ["```", "```python", "````", "~~~", "~~~~ text", "``` `", "  ```", "> ```", "- ```", "<div>",
            "code = 1", "", "- item", "    indented", "# heading", "~~~~", "````md", "text ```x``` here"]
    rng = random.Random(7)
    for _ in range(3000):
        text = "\n".join(rng.choice(pool) for _ in range(rng.randint(1, 9))) + rng.choice(["", "\n"])
        assert markdown.fenced_lines(text) == markdown.code_lines(text, indented=False), text


def test_a_plain_body_gives_the_links_the_parser_gives():
    """links() answers a body with nothing for the parser to decide (no code, HTML, escape,
    Markdown link, tab or four spaces) by finding each "[[" where it is written: the same
    links, offsets and embeds as markdown-it's reading, on texts built to trip it."""
    import random

    from souveraine.language import markdown as M

    def parsed(text):
        saved, M._plain = M._plain, lambda text, start: False
        try:
            return M.links(text)
        finally:
            M._plain = saved

    rng = random.Random(2)
    pieces = ["[[", "]]", "![[", "[", "]", "a", "b c", "|", "\\|", "#", "^x", "\n", "\n\n", "- ", "> ", "# ", "    ",
              "\t", "`", "```", "~~~", "<b>", "<", "\\", "](", "(u)", "]:", "!", "---", "***", "1. ", "  ", "é", "*",
              "&amp;", "\r\n", "text [[x|y]] more", "[[p/q#h|al]]", "===", "+ ", "1) ", "[x]", "[x][y]", "[[a\nb]]", "!\n"]
    plain = 0
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        if rng.random() < 0.3:
            text = "---\ntitle: x\nsource: '[[j#^a]]'\n---\n" + text
        assert M.links(text) == parsed(text), repr(text)
        plain += M._plain(text, 0)
    assert plain > 1000
