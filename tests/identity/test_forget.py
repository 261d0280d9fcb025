"""Forgetting and visibility."""

import json
import subprocess

from souveraine.identity import compose, elevation, memories, witness
from souveraine.laws.verify import verify
from tests.support import assert_clean, git


def _witnessed(memory, outsider, text, tier="foundational", grant="", **patch):
    made = memories.remember(memory, text, identity="ada", key=patch.pop("key", ""))
    note = memories.load(memory, made["id"])[1]
    signed = witness.make(outsider, made["id"], tier, note["content_sha256"], source_grant_id=grant)
    elevation.elevate(memory, made["id"], tier, patch=patch, attestations=[signed])
    return made


def test_forgetting_a_shaping_memory_takes_its_patch_out_in_the_same_commit(memory, outsider, invoke):
    made = _witnessed(memory, outsider, "A vow.", "constitutive", walls_add=["Keep my word"])
    result = invoke("forget", made["id"][:8], "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["forgotten"] == [{"id": made["id"], "path": made["path"], "tier": "constitutive"}]
    assert not (memory.root / made["path"]).exists()
    assert compose.effective(memory, "ada")["walls"] == []
    changed = set(git(memory.root, "show", "--name-only", "--format=", "HEAD").split())
    assert changed == {made["path"], "identities/ada.md", "chronicle/ada.md", "system/persona/effective.md"}
    assert "· forgetting" in (memory.root / "chronicle/ada.md").read_text()
    assert "Keep my word" not in (memory.root / "system/persona/effective.md").read_text()
    assert_clean(memory.root)


def test_forget_by_key_is_all_or_none(memory, outsider, invoke):
    plain = [memories.remember(memory, f"Holiday day {n}.", key="holiday")["id"] for n in range(2)]
    paid = _witnessed(memory, outsider, "The paid portrait.", grant="grant-42", key="holiday")
    head = git(memory.root, "rev-parse", "HEAD")
    result = invoke("forget", "--key", "holiday", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"] == "paid_memory_receipt_preserved"
    assert "carries a paid witness receipt (grant grant-42)" in result.stderr
    assert git(memory.root, "rev-parse", "HEAD") == head
    for memory_id in plain + [paid["id"]]:
        memories.find(memory, memory_id)
    assert invoke("forget", paid["id"]).exit_code == 1
    keep = memories.remember(memory, "Not a holiday.", key="work")
    path = memory.root / memories.find(memory, paid["id"])
    git(memory.root, "rm", "-q", str(path))
    done = subprocess.run(["git", "-C", str(memory.root), "commit", "-qm", "fix(memory): drop the portrait by hand"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "carries a paid witness receipt (grant grant-42), which is preserved" in done.stderr
    git(memory.root, "commit", "-q", "--no-verify", "-m", "fix(memory): drop the portrait by hand")
    assert [b.rule for b in verify(memory).breaches][:2] == ["paid_receipt", "effective"]  # and effective.md is stale
    assert invoke("forget", "--key", "holiday").exit_code == 0
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(memory): forget key holiday"
    assert sorted(p.name for p in (memory.root / "memories").rglob("*.md")) == [keep["path"].split("/")[-1]]
    assert_clean(memory.root)


def test_forget_needs_an_id_or_a_key(invoke):
    assert "give a memory ID or --key KEY" in invoke("forget").stderr
    missing = invoke("forget", "--key", "nope")
    assert missing.exit_code == 2 and "no memory has the key 'nope'" in missing.stderr


def test_visibility_changes_a_property_not_the_hash(memory, outsider, invoke):
    made = _witnessed(memory, outsider, "A private lesson.", walls_add=["Hush"])
    result = invoke("visibility", made["id"], "private", "--json")
    assert result.exit_code == 0, result.stderr
    note = memories.load(memory, made["id"])[1]
    assert note["visibility"] == "private" and memories.hash_matches(note)
    assert git(memory.root, "log", "-1", "--format=%s").strip() == f"feat(memory): make {made['id'][:8]} private"
    assert json.loads(invoke("visibility", made["id"], "private", "--json").stdout)["commit"] is None
    assert invoke("visibility", made["id"], "secret").exit_code == 2
    assert_clean(memory.root)


def test_visibility_stays_mutable_for_a_paid_memory_and_does_not_lift_its_receipt(memory, outsider, invoke):
    paid = _witnessed(memory, outsider, "The paid portrait.", grant="grant-7")
    assert invoke("visibility", paid["id"], "public").exit_code == 0
    assert invoke("visibility", paid["id"], "private").exit_code == 0
    assert memories.load(memory, paid["id"])[1]["visibility"] == "private"
    refused = invoke("forget", paid["id"], "--json")
    assert refused.exit_code == 1 and json.loads(refused.stdout)["error"] == "paid_memory_receipt_preserved"
    assert_clean(memory.root)
