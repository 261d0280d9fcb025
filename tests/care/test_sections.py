"""A note's sections are cut along the headings CommonMark reads, not along lines that look like them."""

from souveraine.care import sections

BODY = """Intro.

## Garden

Tomatoes in May.

```bash
## not a heading, a shell comment
```

Plumbing
--------

The boiler is serviced in October.

   ## Travel ##

Lisbon in March.
"""


def test_headings_skip_code_and_read_setext_and_closing_hashes():
    assert sections.headings(BODY) == [(2, "Garden", 2), (2, "Plumbing", 10), (2, "Travel", 15)]


def test_the_cut_keeps_each_section_verbatim():
    cut = sections.cut(BODY)
    assert [s.title for s in cut.sections] == ["Garden", "Plumbing", "Travel"]
    assert "## not a heading" in cut.sections[0].text and cut.preamble == "Intro.\n"


def test_a_body_without_headings_is_not_parsed():
    assert sections.headings("Just a paragraph.\n\n- a list\n- of things\n") == []
    assert sections.cut("No headings here.").sections == ()


def test_paragraphs_keep_a_code_block_with_blank_lines_whole():
    body = "Intro.\n\n```sh\nmake\n\nmake test\n```\n\n- one\n\n- two\n"
    assert sections.paragraphs(body) == ["Intro.", "```sh\nmake\n\nmake test\n```", "- one", "- two"]
    assert sections.paragraphs("  \n") == []
