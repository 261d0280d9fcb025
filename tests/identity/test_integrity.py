"""Tamper evidence: a witnessed root cannot be rewritten quietly."""

import subprocess

import pytest

from souveraine.identity import elevation, integrity, memories, witness
from tests.support import assert_clean, git


@pytest.fixture
def root_memory(memory, outsider):
    """A constitutive memory of ada, witnessed by an outsider in an active covenant."""
    made = memories.remember(memory, "The vow I made.\n\nWith its second paragraph.", identity="ada")
    note = memories.load(memory, made["id"])[1]
    signed = witness.make(outsider, made["id"], "constitutive", note["content_sha256"])
    elevation.elevate(memory, made["id"], "constitutive", patch={"walls_add": ["Keep my word"]}, attestations=[signed])
    return made["path"]


def _check(memory, relpath, text=None):
    def read(other):
        path = memory.root / other
        return path.read_text() if path.is_file() else None

    return integrity.check(relpath, text if text is not None else read(relpath), read)


def test_an_intact_root_and_any_episode_have_no_problems(memory, root_memory):
    assert _check(memory, root_memory) == []
    episode = memories.remember(memory, "Just a day.")["path"]
    text = (memory.root / episode).read_text().replace("Just a day.", "Rewritten freely.")
    assert _check(memory, episode, text) == []
    assert _check(memory, "system/state.md", "anything") == []


def test_an_edited_root_is_named_with_what_to_do(memory, root_memory):
    text = (memory.root / root_memory).read_text().replace("The vow I made.", "The vow I wish I made.")
    problems = _check(memory, root_memory, text)
    assert len(problems) == 1
    assert problems[0].startswith(f"{root_memory}: this constitutive memory's text no longer matches its content_sha256")
    assert "forget it and remember the new text" in problems[0]


def test_a_re_hashed_root_fails_its_signature(memory, root_memory):
    text = (memory.root / root_memory).read_text()
    note = memories.load(memory, root_memory.split("-")[-1][:8])[1]
    forged_body = "The vow I wish I made.\n"
    forged = text.replace(note["content_sha256"], memories.content_sha256(forged_body)).replace(
        "The vow I made.\n\nWith its second paragraph.", forged_body.strip())
    problems = _check(memory, root_memory, forged)
    assert problems == [f"{root_memory}: the signature of {note['attesters'][0]} does not verify for this memory "
                        "at tier constitutive; restore the memory from git"]


def test_a_root_without_its_witness_is_a_problem(memory, root_memory):
    text = (memory.root / root_memory).read_text()
    stripped = text[: text.index("\n## Attestations")] + "\n"
    problems = _check(memory, root_memory, stripped)
    assert any("a constitutive memory without a constitutive witness" in p for p in problems)
    assert any("attesters property does not list exactly" in p for p in problems)
    promoted = (memory.root / memories.remember(memory, "Promoted by hand.")["path"])
    assert _check(memory, memory.rel(promoted), promoted.read_text().replace("tier: episodic", "tier: constitutive"))


def test_the_pre_commit_hook_refuses_a_hand_edit_of_a_root(memory, root_memory):
    path = memory.root / root_memory
    original = path.read_text()
    path.write_text(original.replace("The vow I made.", "The vow I never made."))
    git(memory.root, "add", root_memory)
    done = subprocess.run(["git", "-C", str(memory.root), "commit", "-qm", "fix(memory): soften the vow"],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert f"souveraine: {root_memory}: this constitutive memory's text no longer matches its content_sha256" in done.stderr
    assert git(memory.root, "log", "-1", "--format=%s").strip().startswith("feat(identity): elevate")
    git(memory.root, "checkout", "HEAD", "--", root_memory)
    path.write_text(original.replace("visibility: public", "visibility: private"))
    git(memory.root, "commit", "-qam", "fix(memory): make the vow private by hand")
    assert_clean(memory.root)
