from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, write


def test_a_note_whose_frontmatter_does_not_parse_is_refused_with_its_line(memory):
    write(memory.root, "people/bob.md", "---\ndescription: Bob\ntitle: Bob: the builder\n---\n# Bob\n")
    done = commit_all(memory.root, "feat(memory): meet bob")
    assert done.returncode == 1
    assert done.stderr == ("souveraine: people/bob.md:3: frontmatter does not parse "
                           "(mapping values are not allowed here); fix the YAML\n")


def test_a_file_left_broken_before_is_not_blamed_for_an_append(memory):
    broken = DAY.replace("05", "06")
    write(memory.root, broken, "---\ntype: [journal\n---\n# Tuesday\n")
    assert commit_all(memory.root, "chore(journal): a broken day", "--no-verify").returncode == 0
    write(memory.root, broken, "\nA turn.\n", mode="a")
    done = commit_all(memory.root, "chore(journal): a turn")
    assert (done.returncode, done.stderr) == (0, "")


def test_markdown_without_frontmatter_is_fine(memory):
    write(memory.root, "domains/sailing.md", "# Sailing\n\nNo properties here.\n")
    write(memory.root, DAY, DAY_TEXT + "\n---\nnot frontmatter, a rule\n")
    assert commit_all(memory.root, "feat(memory): sailing").returncode == 0


def test_a_duplicate_property_is_refused(memory):
    write(memory.root, "people/ana.md", "---\ndescription: Ana\ntags: [friend]\ndescription: Ana B.\n---\n# Ana\n")
    done = commit_all(memory.root, "feat(memory): meet ana")
    assert done.returncode == 1
    assert done.stderr.startswith('souveraine: people/ana.md:4: frontmatter does not parse (found duplicate key "description"')


MEMORY_BLOCK = """---
id: 7b6274d8-d64d-4c74-8daf-ef138d81df09
tier: episodic
created: '2019-07-01T08:24:48+00:00'
identity_id: ''
content_sha256: 33a2a491f909b3ba378cc471aebdcb3f36f68b191646997a57e11ee750be263c
source: '[[journal/2019/07/2019-07-01#^t082348abecb]]'
description: Inês asked whether it's 50% done… "soon", she said!
aliases: []
empty:
tags:
  - memory
  - episodic
---
"""

# Each a block the flat read must leave to libyaml, or may read only if libyaml reads it alike.
TRICKY = [
    "---\ntitle: Bob: the builder\n---\n", "---\ntitle: ends with a colon:\n---\n", "---\nkey:value\n---\n",
    "---\nkey: -\n---\n", "---\ntags:\n- a\n  - b\n---\n", "---\ntags:\n  - a\n- b\n---\n",
    "---\nname: a\nname: b\n---\n", "---\nk: v\n  more: x\n---\n", "---\nk: 'it''s'\n---\n",
    "---\nk: 'it's'\n---\n", '---\nk: "a\\"b"\n---\n', '---\nk: "a" b\n---\n', "---\nk: [a, b]\n---\n",
    "---\nk: {a: 1}\n---\n", "---\nk: !tag x\n---\n", "---\nk: &a x\n---\n", "---\nk: *a\n---\n",
    "---\nk:\tv\n---\n", "---\nk: a\tb\n---\n", "---\nk: a\x07b\n---\n", "---\nk: a\x85- b\n---\n",
    "---\nk: a\u2028- b\n---\n", "---\nk: a # note\n---\n", "---\nk: a#b\n---\n", "---\n- a\n---\n",
    "---\nk: v\n- a\n---\n", "---\nk:\n-\n---\n", "---\nk:\n- \n---\n", "---\nk:\n  - - a\n---\n",
    "---\nk: |\n  text\n---\n", "---\n k: v\n---\n", "---\n\"k\": v\n---\n", "---\nk: v\n...\n---\n",
    "---\nk: %x\n---\n", "---\nk: @x\n---\n", "---\nk: `x`\n---\n", "---\nk: ? x\n---\n", "---\nk: 2019-07-01\n---\n",
    "---\n# a comment\nk: v\n\n---\n", "---\nk:\n\n  - a\n  # c\n  - b\n---\n", "---  \nk: v\n---\n",
    "\ufeff---\nk: v\n---\n", "---\r\nk: v\r\n---\r\n", "---\nk: v\n----\n", "---\nk: v\n",
]


def test_the_flat_read_accepts_only_what_libyaml_reads_as_one_mapping():
    from souveraine.laws import frontmatter

    assert frontmatter._flat(MEMORY_BLOCK.encode())
    assert frontmatter._flat(b"---\ntype: journal\ndate: 2026-03-02\n---\n")
    flat = [b for b in TRICKY if frontmatter._flat(b.encode())]
    assert all(frontmatter._composes(frontmatter.block(b.encode())) for b in flat), flat
    assert len(flat) >= 5   # the plain cases are read flat; the rest fall to libyaml
