import json
import re

import pytest

from souveraine.care import defrag, doctor, links
from souveraine.errors import Refused
from souveraine.laws import install
from tests.care.conftest import UNRELATED, copy_memory, isolated_session
from tests.support import assert_clean, git

BREAD = ("Bread wants flour, water, salt and time. The starter is fed every morning before work.\n\n"
         "A long cold proof in the fridge gives a better crumb and a sourer taste to the loaf.\n\n")
JOURNAL = ("---\ntype: journal\ndate: 2026-03-02\ndescription: What was said on 2 March 2026.\ntags:\n  - journal\n---\n"
           "# Monday 2 March 2026\n\n## 09:00:00 · user\n\nI wrote it down in [[loaf]].\n\n^t090000u1234\n")
NOTES = {
    "domains/everything.md": "---\ndescription: Everything at once.\ntags:\n  - misc\n---\n# Everything\n\nAll in one place.\n\n"
                             + "".join(f"## {title}\n\n{text}\n\n" for title, text in UNRELATED.items())
                             + "## Errands\n\nSee [[#Taxes]] and the block below.\n\nBuy stamps. ^stamps\n",
    "domains/bread.md": "---\ndescription: Bread.\n---\n# Bread\n\n" + BREAD + "Rye is denser.\n",
    "domains/loaf.md": "---\ndescription: Loaves.\n---\n# Bread\n\n" + BREAD + "Spelt is nutty.\n",
    "domains/hub.md": ("# Hub\n\nStart with [[everything#Garden]], [[domains/everything#^stamps|stamps]], [[bread]], [[loaf]]\n"
                       "and [chess](everything.md#Chess), then [[people#Dave|Dave]] and [[people#Erin]].\n"),
    "people.md": "---\ndescription: Everyone.\n---\n# People\n\nFriends first.\n\n## Dave\n\nDave plays chess.\n\n## Erin\n\nErin bakes rye.\n",
    "journal/2026/03/2026-03-02.md": JOURNAL,
}


@pytest.fixture(scope="module")
def tangled_template(tmp_path_factory, memory_template):
    root = tmp_path_factory.mktemp("tangled") / "memory"
    with isolated_session(tmp_path_factory):
        copy_memory(memory_template[0], root)
        for rel, text in NOTES.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        with (root / "people/_index.md").open("a") as index:
            index.write("\n[[people]] lists the others.\n[[hub]]\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "docs: notes written by hand")
    return root


@pytest.fixture
def tangled(tangled_template, tmp_path):
    return copy_memory(tangled_template, tmp_path / "tangled")


def paragraphs(root):
    """Every paragraph of every note, links masked, frontmatter and defrag's link lists left out."""
    found = set()
    for path in links.walk(root):
        if not path.endswith(".md"):
            continue
        text = (root / path).read_text()
        body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
        for p in re.split(r"\n\s*\n", body):
            p = p.strip()
            if not p or all(re.fullmatch(r"- \[\[[^\]]+\]\]", line) for line in p.splitlines()):
                continue
            found.add(re.sub(r"\]\([^)]*\)", "]()", re.sub(r"\[\[[^\]]*\]\]", "[[]]", p)))
    return found


def broken(memory):
    return [f.to_dict() for f in doctor.doctor(memory) if f.check in ("broken-link", "ambiguous-link")]


def test_defrag_keeps_every_paragraph_and_every_link(tangled, invoke):
    before = paragraphs(tangled.root)
    assert broken(tangled) == []
    journal = tangled.path("journal/2026/03/2026-03-02.md").read_bytes()
    result = invoke("defrag", "--json", memory_root=tangled.root)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert {(s["action"], s["path"]) for s in plan} >= {
        ("split", "domains/everything.md"), ("split", "people.md"), ("merge", "domains/bread.md"),
        ("describe", "domains/hub.md"), ("relink", "domains/hub.md")}
    assert paragraphs(tangled.root) == before
    assert broken(tangled) == []
    assert_clean(tangled.root)
    assert tangled.path("journal/2026/03/2026-03-02.md").read_bytes() == journal
    assert git(tangled.root, "log", "-1", "--format=%s").strip() == (
        "chore(defrag): split 2 notes, merge 1 duplicate, describe 1 note, relink 3 notes")
    assert all(install.installed(tangled.root).values())   # so the commit went through the hooks


def test_defrag_rewrites_links_to_where_the_text_went(tangled, invoke):
    invoke("defrag", memory_root=tangled.root)
    hub = tangled.path("domains/hub.md").read_text()
    assert "[[domains/everything/garden#Garden]]" in hub
    assert "[[domains/everything/errands#^stamps|stamps]]" in hub
    assert "[[domains/loaf]]" in hub and "[[bread]]" not in hub
    assert "[chess](everything/chess.md#Chess)" in hub
    assert "[[people/dave#Dave|Dave]]" in hub
    assert "[[people/erin#Erin]]" in hub
    assert "[[domains/everything/taxes#Taxes]]" in tangled.path("domains/everything/errands.md").read_text()
    assert "[[people/_index]] lists the others." in tangled.path("people/_index.md").read_text()
    assert "Rye is denser." in tangled.path("domains/loaf.md").read_text()
    assert not tangled.exists("domains/bread.md") and not tangled.exists("people.md")
    garden = tangled.path("domains/everything/garden.md").read_text()
    assert garden.startswith("---\ndescription: Tomatoes planted along the fence; basil beside them; compost turned weekly.\n"
                             "tags:\n  - misc\n---\n## Garden\n")


def test_a_note_an_append_only_file_links_to_is_kept(tangled):
    shape = defrag.plan(tangled)
    merge = [s for s in shape.steps if s.action == "merge"]
    assert [(s.path, s.into) for s in merge] == [("domains/bread.md", ["domains/loaf.md"])]   # the journal links to loaf


def test_append_only_notes_are_never_reshaped(memory):
    report = "---\ndescription: A long report.\n---\n# Report\n\n" + "".join(f"## {t}\n\n{x}\n\n" for t, x in UNRELATED.items())
    memory.path("reference/reports/r.md").write_text(report)
    git(memory.root, "add", "-A")
    git(memory.root, "commit", "-qm", "docs: a report")
    assert defrag.plan(memory).steps == []


def test_dry_run_prints_the_plan_and_changes_nothing(tangled, invoke):
    head = git(tangled.root, "rev-parse", "HEAD")
    result = invoke("defrag", "--dry-run", memory_root=tangled.root)
    assert result.exit_code == 0
    assert "split     domains/everything.md: unrelated sections: 11 notes along its headings" in result.stdout
    steps = len(result.stdout.splitlines())
    assert result.stderr == (f"defrag: would make {steps} changes in one 'chore(defrag): …' commit; "
                             "run 'souveraine defrag' to apply\n")
    assert git(tangled.root, "rev-parse", "HEAD") == head
    assert_clean(tangled.root)


def test_dry_run_on_a_memory_in_shape_says_so(memory, invoke):
    result = invoke("defrag", "--dry-run")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "defrag: nothing to do\n")


def _fail_before_merge(memory, branch, base):
    raise RuntimeError("injected failure before the merge")


def _fail_after_merge(memory, branch, base):
    memory.git("merge", "--ff-only", "-q", branch)
    raise RuntimeError("injected failure after the merge")


@pytest.mark.parametrize("failure", [_fail_before_merge, _fail_after_merge])
def test_a_failure_leaves_main_exactly_as_it_was(tangled, monkeypatch, failure):
    head = git(tangled.root, "rev-parse", "HEAD")
    files = {p: tangled.path(p).read_bytes() for p in links.walk(tangled.root)}
    monkeypatch.setattr(defrag, "_merge_back", failure)
    with pytest.raises(RuntimeError, match="injected"):
        defrag.defrag(tangled)
    assert git(tangled.root, "rev-parse", "HEAD") == head
    assert {p: tangled.path(p).read_bytes() for p in links.walk(tangled.root)} == files
    assert_clean(tangled.root)
    assert len(git(tangled.root, "worktree", "list").splitlines()) == 1
    assert git(tangled.root, "branch", "--format=%(refname:short)").split() == ["main"]


def test_a_hook_refusal_in_the_worktree_leaves_main_as_it_was(tangled, monkeypatch):
    head = git(tangled.root, "rev-parse", "HEAD")
    monkeypatch.setattr(defrag, "_message", lambda steps: "chore(defrag): tidy")
    hook = tangled.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'souveraine: refused for the test' >&2\nexit 1\n")
    with pytest.raises(Refused, match="refused for the test"):
        defrag.defrag(tangled)
    assert git(tangled.root, "rev-parse", "HEAD") == head
    assert_clean(tangled.root)


def test_defrag_refuses_uncommitted_changes(tangled, invoke):
    tangled.path("domains/hub.md").write_text("changed\n")
    result = invoke("defrag", memory_root=tangled.root)
    assert result.exit_code == 1
    assert result.stderr == "souveraine: the memory has 1 uncommitted change(s); commit or discard them, then run defrag\n"


def test_defrag_on_a_fresh_memory_does_nothing(memory, invoke):
    head = git(memory.root, "rev-parse", "HEAD")
    result = invoke("defrag")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == "defrag: nothing to do\n"
    assert json.loads(invoke("defrag", "--json").stdout) == []
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_people_md_becomes_one_note_per_person(memory, invoke):
    memory.path("people.md").write_text("# People\n\n## Bob\n\nBob plays the cello.\n\n## Zoé Durand\n\nZoé paints.\n")
    memory.path("people/bob.md").write_text("---\ndescription: Bob.\n---\n# Bob\n\nBob lends tools.\n")
    memory.path("domains/friends.md").write_text("---\ndescription: Friends.\n---\nSee [[people#Zoé Durand|Zoé]].\n")
    git(memory.root, "add", "-A")
    git(memory.root, "commit", "-qm", "docs: people by hand")
    assert invoke("defrag").exit_code == 0
    assert not memory.exists("people.md")
    assert memory.read_text("people/bob.md") == "---\ndescription: Bob.\n---\n# Bob\n\nBob lends tools.\n\n## Bob\n\nBob plays the cello.\n"
    assert memory.read_text("people/zoe-durand.md").startswith("---\ntype: person\nname: Zoé Durand\ndescription: Zoé paints.\n")
    assert "[[people/zoe-durand#Zoé Durand|Zoé]]" in memory.read_text("domains/friends.md")
    assert "- [[people/zoe-durand|Zoé Durand]]" in memory.read_text("people/_index.md")
    assert not [f for f in doctor.doctor(memory) if f.check in ("people-file", "broken-link") or f.path.startswith("people/")]


def test_a_merge_never_writes_a_paragraph_the_keeper_already_holds():
    from souveraine.care.defrag import _new_paragraphs

    had = ["Rye is denser than wheat, and it keeps longer.", "## Starter", "Feed the starter twice a day."]
    offered = ["Rye is  denser than wheat,\nand it keeps longer!", "## starter", "feed the starter", "Spelt needs less water.",
               "Spelt needs less water."]
    assert _new_paragraphs(had, offered) == ["Spelt needs less water."]


def test_a_description_is_prose_never_a_line_of_code():
    from souveraine.care import describe

    body = "```python\nsetup()\n\nThe cache is warmed here.\n```\n\nThe note keeps the release steps. More.\n"
    assert describe.describe(body, "notes/release.md") == "The note keeps the release steps."
    assert describe.describe("Plan\n====\n\n```\ncode\n```\n", "notes/x.md") == "Plan"


def test_a_merge_adds_a_code_block_whole_never_a_piece_of_it():
    from souveraine.care.defrag import _new_paragraphs

    had = sections_paragraphs("Build it.\n\n```sh\nmake\n\nmake test\n```")
    offered = sections_paragraphs("Build it.\n\n```sh\nmake\n\nmake lint\n```")
    assert _new_paragraphs(had, offered) == ["```sh\nmake\n\nmake lint\n```"]


def sections_paragraphs(body):
    from souveraine.care import sections

    return sections.paragraphs(body)
