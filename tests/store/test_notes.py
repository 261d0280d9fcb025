import pytest

from souveraine.errors import NoteError
from souveraine.store import notes
from souveraine.store.atomic import atomic_write

TEXT = """---
# kept comment
title: Hello   # trailing comment
tags:
  - a
  - b
description: x
---
# Body

text
"""


def test_round_trip_keeps_bytes_order_and_comments():
    note = notes.parse(TEXT)
    assert notes.dumps(note) == TEXT
    note["added"] = 1
    out = notes.dumps(note)
    assert "# kept comment" in out and "# trailing comment" in out
    assert out.index("description") < out.index("added")


def test_a_note_without_frontmatter_is_all_body():
    note = notes.parse("just text\n")
    assert note.body == "just text\n" and not note.meta
    assert notes.dumps(note) == "just text\n"


def test_crlf_and_bom_are_normalised():
    note = notes.parse("\ufeff---\r\na: 1\r\n---\r\nbody\r\n")
    assert note["a"] == 1 and note.body == "body\n"


@pytest.mark.parametrize("text, where", [
    ("---\ntitle: ok\nkey: [unclosed\n---\nx\n", "note:"),
    ("---\na: 1\nnever closed\n", "note:1: frontmatter opened with '---' is never closed"),
    ("---\n- a list\n---\n", "must be a mapping"),
])
def test_bad_frontmatter_names_the_problem(text, where):
    with pytest.raises(NoteError) as err:
        notes.parse(text)
    assert where in str(err.value)


def test_new_keeps_property_order(tmp_path):
    note = notes.new({"id": "1", "tier": "episodic", "tags": ["memory"]}, "body\n")
    notes.write(tmp_path / "n.md", note)
    assert (tmp_path / "n.md").read_text() == "---\nid: '1'\ntier: episodic\ntags:\n  - memory\n---\nbody\n"
    assert notes.read(tmp_path / "n.md")["id"] == "1"


def test_atomic_write_leaves_the_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "f.md"
    target.write_text("old\n")

    def boom(*args):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.md"]


def test_peek_reads_simple_scalars_and_falls_back_for_the_rest(tmp_path):
    path = tmp_path / "n.md"
    path.write_text("---\nphase: DEVELOP  # now\nunit: 'a: b'\nlist:\n  - x\nflow: [1, 2]\n---\nphase: body\n")
    assert notes.peek(path, "phase", "unit") == {"phase": "DEVELOP", "unit": "a: b"}
    assert notes.peek(path, "flow") == {"flow": [1, 2]}
    assert notes.peek(path, "missing") == {}
    (tmp_path / "plain.md").write_text("no frontmatter\n")
    assert notes.peek(tmp_path / "plain.md", "phase") == {}


QUICK = [
    "---\nid: 465b759a-61a9\ntier: episodic\ncreated: '2025-12-13T08:25:50+00:00'\nidentity_id: ''\n"
    "description: It rained on the lantern.\ntags:\n  - memory\n  - episodic\n---\nIt rained.\n",
    "---\nday: 2025-12-13\nat: 2025-12-13T08:25:50+00:00\nanswer: yes\ncount: 010\nclock: 1:20\nnothing: ~\n"
    "done: true\nDone: False\nhex: 0x1f\nsci: 1e3\nhalf: .5\noctal: 0o17\nlist: [1, two]\n---\n\nBody after a blank line.\n",
    "---\ntitle: \"Tomás — «quoted»\"\nnested:\n  key: value\n  deeper:\n    - a\n---\n# Heading\n",
    "---\n---\nNo properties.\n",
    "No frontmatter at all.\n",
    "\ufeff---\r\ndescription: BOM and CRLF\r\n---\r\nbody\r\n",
    "---\nday: 2025-12-13\nat: 2025-12-13T08:25:50+00:00\nanswer: yes\ncount: 010\nclock: 1:20\nnothing: ~\n"
    "done: true\nDone: False\nhex: 0x1f\nsci: 1e3\nhalf: .5\nempty:\nnone: []\nq: 'it''s'\nitems:\n- 7\n- Inês\n"
    "# a comment\n2025: a year as a key\n---\nFlat, every plain value typed.\n",
]


@pytest.mark.parametrize("text", QUICK)
def test_parse_quick_reads_what_parse_reads(text):
    quick, full = notes.parse_quick(text), notes.parse(text)
    assert quick.meta == dict(full.meta)
    assert quick.body == full.body


def test_flat_properties_read_as_libyaml_reads_them():
    from tests.laws.test_frontmatter import MEMORY_BLOCK, TRICKY

    read = 0
    for text in [QUICK[0], QUICK[-1], MEMORY_BLOCK, *TRICKY]:
        yaml_text = text.split("---\n", 2)[1] if text.startswith("---\n") and text.count("---\n") > 1 else None
        typed = notes._typed(notes.flat(yaml_text)) if yaml_text is not None else None
        if typed is not None:
            read += 1
            libyaml = notes._quick_loader()(yaml_text) or {}
            assert typed == libyaml and [type(v) for v in typed.values()] == [type(v) for v in libyaml.values()], text
    assert read >= 7


@pytest.mark.parametrize("text", ["---\na: 1\na: 2\n---\nx", "---\n- a\n---\n", "---\na: [\n---\n", "---\nx: 1\n"])
def test_parse_quick_gives_parse_verdict_on_what_libyaml_reads_otherwise(text):
    with pytest.raises(NoteError) as full:
        notes.parse(text)
    with pytest.raises(NoteError) as quick:
        notes.parse_quick(text)
    assert str(quick.value) == str(full.value)
