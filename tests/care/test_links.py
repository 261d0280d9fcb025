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
