import pytest

from souveraine.care import links
from souveraine.care.links import Vault

TEXTS = {
    "system/persona/identity.md": "# Who I am\n\n## Scope\n\nText. ^scope1\n",
    "people/alice.md": "# Alice\n\nAlice bakes.\n",
    "domains/alice.md": "# Alice (the song)\n",
    "people/bob.md": "# Bob\n\n## Work & Play\n\nBob plays.\n",
    "notes/My Note.md": "# My Note\n",
    "notes/here.md": "# Here\n",
    "notes/sub/deep.md": "see [up](../My%20Note.md) and [root](people/bob.md)\n",
}
VAULT = Vault.from_texts(TEXTS, others=["attachments/photo.png"])


def resolve(text, source="notes/here.md"):
    (link,) = links.find(text)
    return VAULT.resolve(link, source)


@pytest.mark.parametrize("text,target", [
    ("[[identity]]", "system/persona/identity.md"),
    ("[[IDENTITY]]", "system/persona/identity.md"),
    ("[[system/persona/identity]]", "system/persona/identity.md"),
    ("[[system/persona/identity.md]]", "system/persona/identity.md"),
    ("[[persona/identity|who]]", "system/persona/identity.md"),
    ("[[identity#Scope]]", "system/persona/identity.md"),
    ("[[identity#Who I am#Scope]]", "system/persona/identity.md"),
    ("[[identity#^scope1]]", "system/persona/identity.md"),
    ("![[photo.png]]", "attachments/photo.png"),
    ("[[bob#work play]]", "people/bob.md"),
    ("[[people/alice]]", "people/alice.md"),
    ("[[My Note]]", "notes/My Note.md"),
    ("[x](../people/bob.md)", "people/bob.md"),
    ("[x](<My Note.md>)", "notes/My Note.md"),
    ("[x](My%20Note.md#My%20Note)", "notes/My Note.md"),
    ("[[#Nothing]]", None),
])
def test_links_resolve_by_path_then_unique_name(text, target):
    result = resolve(text)
    if target is None:
        assert result.status == links.NO_ANCHOR
    else:
        assert result.ok and result.target == target


def test_markdown_links_resolve_relative_to_the_note_then_from_the_root():
    found = {l.alias: VAULT.resolve(l, "notes/sub/deep.md") for l in links.find(TEXTS["notes/sub/deep.md"])}
    assert found["up"].target == "notes/My Note.md"
    assert found["root"].target == "people/bob.md"


def test_an_ambiguous_name_is_reported_never_guessed():
    result = resolve("[[alice]]")
    assert result.status == links.AMBIGUOUS and result.target is None
    assert result.candidates == ("domains/alice.md", "people/alice.md")


@pytest.mark.parametrize("text,status", [
    ("[[carol]]", links.MISSING),
    ("[[identity#Nope]]", links.NO_ANCHOR),
    ("[[identity#^nope]]", links.NO_ANCHOR),
    ("[x](../../../etc/passwd)", links.MISSING),
])
def test_missing_targets_and_anchors(text, status):
    assert resolve(text).status == status


def test_code_external_urls_and_escaped_pipes():
    text = "`[[code]]` and\n```\n[[fenced]]\n```\n[web](https://x.org) [[a\\|b]] [m](mailto:a@b.c)\n"
    found = links.find(text)
    assert [(l.target, l.alias) for l in found] == [("a", "b")]


def test_retarget_keeps_the_links_form():
    wiki, embed, md = links.find("[[alice#Bakes|her]] ![[photo.png]] [Bob](../people/bob.md#Work)")
    assert links.retarget(wiki, "people/alice.md", "x.md") == "[[people/alice#Bakes|her]]"
    assert links.retarget(embed, "media/photo.png", "x.md") == "![[media/photo.png]]"
    assert links.retarget(md, "people/friends/bob.md", "notes/sub/deep.md") == "[Bob](../../people/friends/bob.md#Work)"


def test_rewrite_changes_only_the_links_it_is_told():
    text = "a [[x]] b [[y|Y]] c"
    out = links.rewrite(text, lambda l: "[[z]]" if l.target == "x" else None)
    assert out == "a [[z]] b [[y|Y]] c"


def test_inbound_counts_links_from_other_notes():
    vault = Vault.from_texts({"a.md": "[[b]] [[a]]", "b.md": "", "c.md": "[[b]]"})
    assert vault.inbound() == {"b.md": {"a.md", "c.md"}}


# -- what the Markdown parser reads right and a pattern read wrong ------------------------------


@pytest.mark.parametrize("text", [
    "Intro.\n\n    [[indented-code]]\n\nAfter.\n",                      # an indented block is code
    "A stray ` here.\n\nA [[real]] link.\n\nAnd `code` after.\n",       # a code span never crosses paragraphs
    "Escaped: \\[[not-a-link]] stays text.\n",                          # a backslash keeps the bracket literal
    "```\ncode\n    ```\n[[still-code]]\n```\n",                        # a fence is closed by ≤ 3 spaces of indent only
    "<!--\n[[commented-out]]\n-->\n",                                   # raw HTML is not prose
])
def test_links_are_only_what_markdown_shows_as_links(text):
    found = [l.raw for l in links.find(text)]
    expected = {"A stray ` here.\n\nA [[real]] link.\n\nAnd `code` after.\n": ["[[real]]"]}.get(text, [])
    assert found == expected


def test_a_setext_heading_and_an_indented_heading_are_anchors():
    vault = Vault.from_texts({"a.md": "Plan\n====\n\n  ## Later\n\ntext\n", "b.md": "[[a#Plan]] [[a#Later]]\n"})
    assert [vault.resolve(l, "b.md").status for l in vault.links("b.md")] == [links.OK, links.OK]


def test_a_hash_line_in_fenced_code_is_no_anchor():
    vault = Vault.from_texts({"a.md": "# A\n\n~~~sh\n# install\n~~~\n", "b.md": "[[a#install]]\n"})
    assert vault.resolve(vault.links("b.md")[0], "b.md").status == links.NO_ANCHOR


def test_a_block_id_in_code_is_no_block_but_one_ending_a_list_item_is():
    text = "- first point ^point1\n- second\n\n```\nexample ^inside\n```\n"
    vault = Vault.from_texts({"a.md": text, "b.md": "[[a#^point1]] [[a#^inside]]\n"})
    assert [vault.resolve(l, "b.md").status for l in vault.links("b.md")] == [links.OK, links.NO_ANCHOR]


def test_offsets_hold_through_quotes_lists_and_front_matter():
    text = ("---\nsource: '[[journal/2026/11/2026-11-30#^t1]]'\n---\n> quoted [[a|A]]\n>   and ![[b]]\n\n"
            "- item [c](c.md#Top)\n  - nested [[d#^x]]\n")
    found = links.find(text)
    assert [(l.target, l.anchor, l.alias, l.embed) for l in found] == [
        ("journal/2026/11/2026-11-30", "^t1", None, False), ("a", None, "A", False), ("b", None, None, True),
        ("c.md", "Top", "c", False), ("d", "^x", None, False)]
    assert all(text[l.start:l.end] == l.raw and l.raw.endswith(("]]", ")")) for l in found)
    assert links.rewrite(text, lambda l: "[[z]]" if l.target == "a" else None).count("[[z]]") == 1


def _tricky(root):
    """A memory with what walk leaves out or folds: hidden files and folders, case twins, links in and out."""
    files = ["people/alice.md", "people/Alice.md", "people/bob.md", "People/carol.md", "people/.hidden.md",
             ".obsidian/app.md", "notes/My Note.md", "notes/sub/deep.md", "notes/sub/Deep.md", "attachments/photo.png",
             "people/dana", "people/dana.md", "Notes/other.md"]
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("# x\n\nsee [[people/alice]] ^b1\n", encoding="utf-8")
    (root / "out").mkdir()
    (root / "out" / "secret.md").write_text("no\n", encoding="utf-8")
    memory = root / "memory"
    memory.mkdir()
    for name in files:
        (memory / name).parent.mkdir(parents=True, exist_ok=True)
        (memory / name).write_text((root / name).read_text(encoding="utf-8"), encoding="utf-8")
    (memory / "people" / "eve.md").symlink_to(root / "out" / "secret.md")            # leads out
    (memory / "people" / "frank.md").symlink_to(memory / "people" / "bob.md")        # stays in
    (memory / "people" / "gone.md").symlink_to(memory / "people" / "nobody.md")      # broken
    (memory / "linked").symlink_to(memory / "notes")                                 # a folder link: not walked
    (memory / "outer").symlink_to(root / "out")                                      # leads out
    return memory


def test_a_near_vault_resolves_every_path_as_the_walked_one(tmp_path):
    memory = _tricky(tmp_path)
    walked = Vault.of(memory)
    names = sorted(walked.files) + ["people/eve.md", "people/gone.md", "linked/My Note.md", "outer/secret.md",
                                    ".obsidian/app.md", "people/.hidden.md", "nobody.md", "people/", "/people/bob"]
    paths = {variant for name in names for stem in (name, name.removesuffix(".md"))
             for variant in (stem, stem.upper(), stem.swapcase(), "./" + stem, "a/../" + stem)}
    texts = [f"[[{p}]]" for p in sorted(paths) if "]" not in p and "|" not in p and "#" not in p] + \
            [f"[[{p}#^b1]]" for p in ("people/alice", "people/bob", "notes/sub/deep")] + \
            [f"[x]({p.replace(' ', '%20')})" for p in sorted(paths) if p.endswith(".md") and "(" not in p]
    for text in texts:
        for link in links.find(text):
            for source in ("people/_index.md", "notes/sub/deep.md"):
                near = Vault.near(memory)     # each alone: once walked, a near vault answers as the other
                assert near.resolve(link, source) == walked.resolve(link, source), (text, source)


def test_a_near_vault_lists_only_the_folders_a_path_names(tmp_path):
    memory = _tricky(tmp_path)
    near = Vault.near(memory)
    (link,) = links.find("[[people/bob|Bob]]")
    assert near.resolve(link, "people/_index.md").target == "people/bob.md"
    assert "files" not in near.__dict__ and set(near._folders) == {"", "people/", "People/"}
