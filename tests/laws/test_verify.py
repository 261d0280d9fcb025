import json

from souveraine.bootstrap import init
from souveraine.laws.verify import verify
from souveraine.store.memory import Memory
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, write
from tests.support import git

REWRITE = (f"{DAY}: append-only, but this change changes its committed text at line 12; "
           "restore the committed text and append a correction entry instead")


def _breach_without_hooks(root):
    write(root, DAY, DAY_TEXT.replace("Good morning.", "Good night."))
    assert commit_all(root, "tidied", "--no-verify").returncode == 0
    return git(root, "rev-parse", "HEAD").strip()


def test_a_whole_history_kept_by_the_laws_verifies(invoke, memory):
    result = invoke("verify", "--json")
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])
    text = invoke("verify")
    assert (text.exit_code, text.stdout, text.stderr) == (0, "", "2 commits (0 judged, 2 on record) verified, no breaches\n")


def test_a_breach_made_with_no_verify_is_found(invoke, memory):
    sha = _breach_without_hooks(memory.root)
    result = invoke("verify", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {"commit": sha, "path": DAY, "rule": "append_only_rewrite", "message": REWRITE},
        {"commit": sha, "path": "", "rule": "bad_message",
         "message": "'tidied' is not a Conventional Commit; write 'type(scope): what changed', e.g. 'fix(memory): correct the birthday'"},
    ]
    text = invoke("verify")
    assert text.exit_code == 1
    assert text.stdout.splitlines()[0] == f"{sha[:12]}  append_only_rewrite  {REWRITE}"


def test_since_replays_only_the_later_commits(invoke, memory):
    _breach_without_hooks(memory.root)
    write(memory.root, DAY, "\nA later turn.\n", mode="a")
    assert commit_all(memory.root, "chore(journal): a later turn").returncode == 0
    assert invoke("verify", "--since", "HEAD~1", "--json").stdout.strip() == "[]"
    assert invoke("verify", "--since", "HEAD~2").exit_code == 1
    bad = invoke("verify", "--since", "nope")
    assert bad.exit_code == 2
    assert bad.stderr == "souveraine: 'nope' is not a commit of this memory; give a commit id, a tag or e.g. HEAD~10\n"


def test_key_material_and_broken_frontmatter_are_found(memory):
    write(memory.root, "notes/k.md", "---\ntitle: [x\n---\nseed: " + "ab" * 32 + "\n")
    commit_all(memory.root, "feat(memory): k", "--no-verify")
    assert [(b.path, b.rule) for b in verify(memory).breaches] == [("notes/k.md", "private_key"), ("notes/k.md", "bad_frontmatter")]


def test_a_merge_is_judged_against_both_parents(memory):
    root = memory.root
    git(root, "checkout", "-q", "-b", "side")
    write(root, DAY, "\nFrom the side.\n", mode="a")
    commit_all(root, "chore(journal): side")
    git(root, "checkout", "-q", "main")
    write(root, DAY, "\nFrom main.\n", mode="a")
    commit_all(root, "chore(journal): main")
    git(root, "merge", "-q", "-s", "ours", "--no-edit", "side")  # keeps main's file: the side's turn is lost
    breaches = verify(memory).breaches
    assert [(b.path, b.rule, b.commit) for b in breaches] == [(DAY, "append_only_rewrite", git(root, "rev-parse", "HEAD").strip())]


def test_an_adopted_vault_is_not_blamed_for_notes_older_than_the_laws(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "broken.md").write_text("---\nkey: [unclosed\n---\nbody\n")
    memory = Memory(init(vault, adopt=True).root)
    assert verify(memory).breaches == []
