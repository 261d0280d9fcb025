"""The attacks an audit found at the level of git, each refused by the command, the hooks and `verify`.

Every test makes the attack with the real git binary (hooks and all), then with
--no-verify, and shows `verify --at HEAD` finding what the hooks were skipped for.
"""

import json
import uuid

from souveraine.identity import did as didkey
from souveraine.identity import keys, memories, witness
from souveraine.store import notes
from tests.identity.conftest import request, sign_as
from tests.laws.steps import git_run
from tests.support import git

DAN = keys.Keypair(bytes([7]) * 32)          # a third party whose key is relabelled as Bea's
ELSEWHERE = "0f0f0f0f-0000-4000-8000-000000000000"


def commit(party, message) -> "subprocess.CompletedProcess":
    """git add -A and git commit, as a person would: the hooks judge it."""
    git(party.root, "add", "-A")
    return git_run(party.root, "commit", "-q", "-m", message)


def refused_by_hook(party, message, *expected) -> None:
    """The commit is refused with each expected line; then made anyway with --no-verify."""
    done = commit(party, message)
    assert done.returncode == 1, done.stderr
    for line in expected:
        assert line in done.stderr, done.stderr
    git(party.root, "commit", "-q", "--no-verify", "-m", message)


def standing(party) -> list[dict]:
    result = party.run("verify", "--at", "HEAD", "--json", code=None, clean=False)
    return json.loads(result.stdout)


def rules(party) -> list[str]:
    return sorted({b["rule"] for b in standing(party)})


def did_of(party) -> str:
    return party.json("identity", "show")["did"]


def memory_path(party, memory_id) -> str:
    return memories.find(party.memory, memory_id)


def hand_raise(party, memory_id, tier, attestations, **properties) -> str:
    """Write a memory's elevation by hand, the way an attacker would (no command)."""
    relpath = memory_path(party, memory_id)
    note = notes.read(party.root / relpath)
    note["tier"] = tier
    note["elevated"] = "2026-12-01T10:00:00+00:00"
    note["attesters"] = list(dict.fromkeys(a["attester_did"] for a in attestations))
    for key, value in properties.items():
        note[key] = value
    note.body = memories.join(memories.split(note.body)[0], attestations)
    notes.write(party.root / relpath, note)
    return relpath


def relabelled(memory_id, tier, sha, as_did) -> dict:
    """Dan's real signature, labelled as someone else's."""
    signed = witness.make(DAN, memory_id, tier, sha)
    return {**signed, "attester_did": as_did, "signing_key_id": didkey.key_id(as_did)}


# -- 1. a covenant's key is the key its did:key encodes -------------------------------------------


def test_covenant_add_refuses_a_key_the_did_does_not_encode(ada, bea):
    bea_did = did_of(bea)
    forged = f"{didkey.key_id(bea_did)}={didkey.multibase(DAN.public)}"
    result = ada.run("covenant", "add", "--did", bea_did, "--key", forged, "--project", ELSEWHERE, "--json", code=1)
    assert json.loads(result.stdout)["error"] == "covenant_key_mismatch"
    assert "is not the key that DID encodes" in result.stderr
    other_id = ada.run("covenant", "add", "--did", bea_did, "--key", f"{bea_did}#key-1={didkey.multibase(didkey.decode(bea_did))}",
                       "--project", ELSEWHERE, code=1)
    assert "is not a did:key verification method" in other_id.stderr
    assert not list((ada.root / "covenants").glob("*.md"))


def test_a_relabelled_key_written_by_hand_is_refused_and_witnesses_nothing(ada, bea, tmp_path):
    bea_did = did_of(bea)
    text = (f"---\ntype: covenant\nhandle: bea\ndid: {bea_did}\nkeys:\n  - '{didkey.key_id(bea_did)}={didkey.multibase(DAN.public)}'\n"
            f"project_id: {ELSEWHERE}\nstatus: active\n---\nBea, by hand.\n")
    (ada.root / "covenants").mkdir(exist_ok=True)
    (ada.root / "covenants/bea.md").write_text(text)
    refused_by_hook(ada, "feat(covenant): bea", "souveraine: covenants/bea.md: the key given for " + bea_did)
    memory_id = ada.remember("Bea never signed this.", "--identity", "ada")
    sha = request(ada, memory_id, "constitutive")["content_sha256"]
    attestation = tmp_path / "dan-as-bea.json"
    attestation.write_text(json.dumps(relabelled(memory_id, "constitutive", sha, bea_did)))
    result = ada.run("elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation), "--json", code=1)
    assert json.loads(result.stdout)["error"] == "unknown_signing_key"
    hand_raise(ada, memory_id, "constitutive", [{**relabelled(memory_id, "constitutive", sha, bea_did), "covenant": "bea"}])
    refused_by_hook(ada, "feat(identity): raised by hand", "holds no key")
    assert rules(ada) == ["covenant", "witness"]


# -- 2. covenants change only by adding and revoking; witnesses re-checked at HEAD ----------------


def test_swapping_a_covenant_key_is_refused_and_the_root_it_let_in_is_found(covenanted, tmp_path):
    ada, bea = covenanted
    bea_did = did_of(bea)
    path = ada.root / "covenants/bea.md"
    path.write_text(path.read_text().replace("=" + didkey.multibase(didkey.decode(bea_did)), "=" + didkey.multibase(DAN.public)))
    refused_by_hook(ada, "fix(covenant): bea's new key", "is not the key that DID encodes",
                    "a covenant is only revoked, renewed or extended by a signed rotation")
    memory_id = ada.remember("She brought a knife.", "--identity", "ada")
    sha = request(ada, memory_id, "constitutive")["content_sha256"]
    hand_raise(ada, memory_id, "constitutive", [{**relabelled(memory_id, "constitutive", sha, bea_did), "covenant": "bea"}])
    refused_by_hook(ada, "feat(identity): raised by hand", "holds no key")
    found = standing(ada)
    assert {b["rule"] for b in found} >= {"covenant", "witness"}
    assert all(b["commit"] == ada.head() for b in found)


def test_deleting_a_covenant_is_refused(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("Witnessed once.", "--identity", "ada")
    attestation = sign_as(bea, tmp_path, memory_id, "foundational", request(ada, memory_id, "foundational")["content_sha256"])
    ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(attestation))
    assert standing(ada) == []
    git(ada.root, "rm", "-q", "covenants/bea.md")
    refused_by_hook(ada, "chore(covenant): tidy", "souveraine: covenants/bea.md: a covenant is never deleted")
    assert rules(ada) == ["witness"]           # the memory's witness names a covenant that is gone
    assert ada.run("verify", code=1, clean=False).stderr.endswith("breaches\n")


def test_revoking_and_renewing_stay_allowed(covenanted, tmp_path):
    ada, bea = covenanted
    ada.run("covenant", "revoke", "bea")
    path = ada.root / "covenants/bea.md"
    path.write_text(path.read_text() + "\nMet again in December.\n")
    assert commit(ada, "docs(covenant): a note on bea").returncode == 0
    assert standing(ada) == []


# -- 3. the self-witness wall, in the laws ---------------------------------------------------------


def test_a_sock_covenant_and_the_root_it_signs_are_refused(ada, tmp_path):
    bob = ada.json("identity", "create", "bob")
    pair = keys.load(bob["did"])
    text = (f"---\ntype: covenant\nhandle: sock\ndid: {pair.did}\nkeys:\n  - '{pair.key_id}={didkey.multibase(pair.public)}'\n"
            f"project_id: {uuid.uuid4()}\nstatus: active\n---\nA friend, honestly.\n")
    memory_id = ada.remember("I am who I say I am.", "--identity", "ada")
    sha = request(ada, memory_id, "constitutive")["content_sha256"]
    (ada.root / "covenants").mkdir(exist_ok=True)
    (ada.root / "covenants/sock.md").write_text(text)
    signed = witness.make(pair, memory_id, "constitutive", sha)
    hand_raise(ada, memory_id, "constitutive", [{**signed, "covenant": "sock"}])
    refused_by_hook(ada, "feat(identity): a root", f"covenants/sock.md: it holds {pair.did}, this memory's own identity 'bob'")
    assert "self_witness" in rules(ada)


# -- verify --at HEAD from git alone ---------------------------------------------------------------


def test_a_clone_with_no_keys_verifies_every_witness(covenanted, tmp_path):
    from tests.support import souveraine

    ada, bea = covenanted
    for n, tier in enumerate(("foundational", "constitutive")):
        memory_id = ada.remember(f"Moment {n}.", "--identity", "ada")
        attestation = sign_as(bea, tmp_path, memory_id, tier, request(ada, memory_id, tier)["content_sha256"])
        ada.run("elevate", memory_id, "--tier", tier, "--wall", f"Wall {n}", "--attestation", str(attestation))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(ada.root), str(clone))
    empty = tmp_path / "no-keys"
    empty.mkdir()
    done = souveraine("--memory", str(clone), "verify", "--at", "HEAD", env={"XDG_CONFIG_HOME": str(empty)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "2 witnessed memories verified, no breaches\n")
    assert not any(empty.iterdir())
    path = next(clone.glob("memories/*.md"))
    for candidate in clone.glob("memories/*.md"):
        if "constitutive" in candidate.read_text():
            path = candidate
    path.write_text(path.read_text().replace("Moment 1.", "Moment one."))
    git(clone, "commit", "-q", "--no-verify", "-am", "fix(memory): reword")
    done = souveraine("--memory", str(clone), "verify", "--at", "HEAD", "--json", env={"XDG_CONFIG_HOME": str(empty)})
    assert done.returncode == 1
    assert [b["rule"] for b in json.loads(done.stdout)] == ["witness"]
    assert "no longer matches its content_sha256" in done.stdout
