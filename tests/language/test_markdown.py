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
