"""Two real memories of two projects, each with its own keys, running the witness flow."""

import json
from pathlib import Path

from souveraine.store import notes
from tests.identity.conftest import request, sign_as
from tests.support import git


def refused(party, args, code, message):
    """A refusal: exit 1, the stable code in --json, one line on stderr, and nothing changed."""
    head = party.head()
    result = party.run(*args, "--json", code=1)
    assert json.loads(result.stdout)["error"] == code
    assert message in result.stderr
    assert party.head() == head
    return result


def test_card_covenant_sign_elevate_and_both_chronicles(covenanted, tmp_path):
    ada, bea = covenanted
    assert ada.json("covenant", "list")[0]["did"] == bea.json("identity", "show")["did"]
    memory_id = ada.remember("Bea stayed with me the night the build broke.", "--identity", "ada")
    asked = request(ada, memory_id, "constitutive")
    attestation = sign_as(bea, tmp_path, memory_id, "constitutive", asked["content_sha256"])
    signed = json.loads(attestation.read_text())
    assert signed["attester_did"] == bea.json("identity", "show")["did"]
    assert signed["context"] == "memory-attestation/v1"

    result = ada.json("elevate", memory_id[:8], "--tier", "constitutive", "--wall", "I do not leave a friend alone",
                      "--register-append", "steady", "--attestation", str(attestation))
    assert result["tier"] == "constitutive" and result["attesters"] == [signed["attester_did"]]

    changed = git(ada.root, "show", "--name-only", "--format=%s", "HEAD").split()
    assert changed[:5] == ["feat(identity):", "elevate", memory_id[:8], "to", "constitutive"]
    assert {"chronicle/ada.md", "identities/ada.md", "system/persona/effective.md", result["path"]} == set(changed[5:])
    note = notes.read(ada.root / result["path"])
    assert note["decay_protected"] is True and note["expression_patch_walls_add"] == ["I do not leave a friend alone"]
    assert "recognition" in (ada.root / "chronicle/ada.md").read_text()
    seal = (bea.root / "chronicle/bea.md").read_text()
    assert "· seal" in seal and memory_id in seal
    assert git(bea.root, "log", "-1", "--format=%s").strip() == f"feat(identity): seal memory {memory_id[:8]} as constitutive"
    view = ada.json("identity", "show", "ada")
    assert view["effective"]["walls"] == ["I do not leave a friend alone"]
    assert view["shaped_by"][0]["attesters"] == [signed["attester_did"]]
    assert "I do not leave a friend alone" in git(ada.root, "log", "-p", "-1", "--", "system/persona/effective.md")


def _signed_by_own(ada, tmp_path, handle, memory_id, tier="constitutive") -> Path:
    """An attestation made with one of ada's own keys (witness sign refuses to make it: see below)."""
    from souveraine.identity import keys, witness

    pair = keys.load(ada.json("identity", "show", handle)["did"])
    signed = witness.make(pair, memory_id, tier, request(ada, memory_id, tier)["content_sha256"])
    path = tmp_path / f"own-{tier}.json"
    path.write_text(json.dumps(signed))
    return path


def test_self_witness_through_a_second_identity_is_refused(ada, tmp_path):
    ada.run("identity", "create", "bob")
    memory_id = ada.remember("A promise to myself.", "--identity", "ada")
    attestation = _signed_by_own(ada, tmp_path, "bob", memory_id)
    refused(ada, ["elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation)],
            "attester_self_witness_forbidden", "is this memory's own identity 'bob'")
    attestation = _signed_by_own(ada, tmp_path, "bob", memory_id, "foundational")
    refused(ada, ["elevate", memory_id, "--tier", "foundational", "--attestation", str(attestation)],
            "attester_self_witness_forbidden", "a witness must be of another project")


def test_witness_sign_refuses_a_memory_of_its_own_and_writes_no_seal(ada):
    ada.run("identity", "create", "bob")
    memory_id = ada.remember("A promise to myself.", "--identity", "ada")
    sha = request(ada, memory_id, "constitutive")["content_sha256"]
    refused(ada, ["witness", "sign", "--memory-id", memory_id, "--tier", "constitutive", "--content-sha256", sha,
                  "--identity", "bob"], "attester_self_witness_forbidden", "never its own")
    assert not (ada.root / "chronicle/bob.md").exists()


def test_own_card_cannot_enter_a_covenant(ada, tmp_path):
    ada.run("identity", "create", "bob")
    card = tmp_path / "bob.json"
    card.write_text(ada.run("identity", "export", "bob").stdout)
    refused(ada, ["covenant", "add", "--card", str(card)], "attester_self_witness_forbidden", "is this memory's own")


def test_a_hand_made_covenant_with_an_own_identity_is_refused_by_the_laws_and_by_elevate(ada, tmp_path):
    from tests.laws.steps import git_run

    bob = ada.json("identity", "create", "bob")
    card = json.loads(ada.run("identity", "export", "bob").stdout)
    text = ("---\ntype: covenant\nhandle: bob\ndid: {did}\nkeys:\n  - '{key}={pub}'\nproject_id: 0f0f0f0f-0000-4000-8000-000000000000\n"
            "status: active\n---\nMade by hand.\n").format(did=bob["did"], key=card["keys"][0]["id"], pub=card["keys"][0]["public_key"])
    (ada.root / "covenants/bob.md").write_text(text)
    git(ada.root, "add", "covenants/bob.md")
    done = git_run(ada.root, "commit", "-qm", "feat(covenant): a covenant with myself")
    assert done.returncode == 1
    assert f"souveraine: covenants/bob.md: it holds {bob['did']}, this memory's own identity 'bob'" in done.stderr
    git(ada.root, "commit", "-q", "--no-verify", "-m", "feat(covenant): a covenant with myself")
    memory_id = ada.remember("Another promise to myself.", "--identity", "ada")
    attestation = _signed_by_own(ada, tmp_path, "bob", memory_id)
    refused(ada, ["elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation)],
            "attester_self_witness_forbidden", "belongs to this memory's own project")
    report = ada.run("verify", "--at", "HEAD", "--json", code=1, clean=False)
    assert [b["rule"] for b in json.loads(report.stdout)] == ["self_witness"]


def test_a_signature_replayed_onto_another_memory_or_tier_is_refused(covenanted, tmp_path):
    ada, bea = covenanted
    first = ada.remember("The first moment.", "--identity", "ada")
    second = ada.remember("The second moment.", "--identity", "ada")
    attestation = sign_as(bea, tmp_path, first, "constitutive", request(ada, first, "constitutive")["content_sha256"])
    refused(ada, ["elevate", second, "--tier", "constitutive", "--attestation", str(attestation)],
            "invalid_signature", f"(it was made for memory {first} at tier constitutive)")
    refused(ada, ["elevate", first, "--tier", "foundational", "--attestation", str(attestation)],
            "invalid_signature", f"does not verify for memory {first} at tier foundational")
    ada.run("elevate", first, "--tier", "constitutive", "--attestation", str(attestation))


def test_a_revoked_covenant_witnesses_nothing_new(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("A late moment.", "--identity", "ada")
    attestation = sign_as(bea, tmp_path, memory_id, "constitutive", request(ada, memory_id, "constitutive")["content_sha256"])
    assert ada.json("covenant", "revoke", "bea")["status"] == "revoked"
    refused(ada, ["elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation)],
            "covenant_inactive", "was revoked")


def test_constitutive_needs_a_witness_and_a_known_key(covenanted, tmp_path, monkeypatch):
    from tests.identity.conftest import make_party

    ada, bea = covenanted
    memory_id = ada.remember("An unwitnessed moment.", "--identity", "ada")
    refused(ada, ["elevate", memory_id, "--tier", "constitutive"], "witness_required", "needs a witness of another project")
    cleo = make_party(tmp_path, monkeypatch, "c", "cleo")
    attestation = sign_as(cleo, tmp_path, memory_id, "constitutive", request(ada, memory_id, "constitutive")["content_sha256"])
    refused(ada, ["elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation)],
            "unknown_signing_key", "no covenant holds the key")
    forged = json.loads(attestation.read_text()) | {"attester_did": json.loads(bea.run("identity", "export").stdout)["did"]}
    forged["signing_key_id"] = forged["attester_did"] + "#" + forged["attester_did"][8:]
    attestation.write_text(json.dumps(forged))
    refused(ada, ["elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation)],
            "invalid_signature", "does not verify")


def test_an_edited_memory_is_refused_with_content_changed(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("What I really said.", "--identity", "ada")
    asked = request(ada, memory_id, "constitutive")
    attestation = sign_as(bea, tmp_path, memory_id, "constitutive", asked["content_sha256"])
    path = next((ada.root / "memories").rglob(f"*-{memory_id[:8]}.md"))
    path.write_text(path.read_text().replace("really said", "wish I had said"))
    git(ada.root, "commit", "-qam", "fix(memory): reword an episode")
    refused(ada, ["elevate", memory_id, "--tier", "constitutive", "--attestation", str(attestation)],
            "content_changed", "no longer matches its content_sha256")


def test_the_memory_must_belong_here(covenanted, tmp_path):
    ada, bea = covenanted
    theirs = bea.remember("Bea's own memory.", "--identity", "bea")
    result = ada.run("elevate", theirs, "--tier", "foundational", code=2)
    assert f"no memory with id {theirs} in this memory" in result.stderr
    foreign = ada.remember("Bound elsewhere.", "--identity", "ada")
    path = next((ada.root / "memories").rglob(f"*-{foreign[:8]}.md"))
    ada_id = ada.json("identity", "show")["id"]
    path.write_text(path.read_text().replace(ada_id, "11111111-2222-4333-8444-555555555555"))
    git(ada.root, "commit", "-qam", "fix(memory): rebind by hand")
    refused(ada, ["elevate", foreign, "--tier", "foundational"], "memory_not_here", "not one of this memory's")


def test_witness_later_with_attest(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("A quiet decision.", "--identity", "ada")
    ada.run("elevate", memory_id, "--tier", "foundational", "--wall", "I decide slowly")
    assert not (ada.root / "chronicle/ada.md").exists()
    attestation = sign_as(bea, tmp_path, memory_id, "foundational", request(ada, memory_id, "foundational")["content_sha256"])
    result = ada.json("attest", memory_id, "--attestation", "-", input=attestation.read_text())
    assert result["attested_now"] == result["attesters"] and len(result["attesters"]) == 1
    assert "recognition" in (ada.root / "chronicle/ada.md").read_text()
    assert "witnessed by `did:key:" in (ada.root / "system/persona/effective.md").read_text()
    again = ada.run("attest", memory_id, "--attestation", str(attestation), code=2)
    assert "already carries these attestations" in again.stderr


def test_a_malformed_attestation_is_a_usage_error(ada, tmp_path):
    memory_id = ada.remember("Anything.", "--identity", "ada")
    bad = tmp_path / "bad.json"
    bad.write_text('{"attester_did": 1}')
    result = ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(bad), code=2)
    assert "an attestation is a JSON object with attester_did" in result.stderr
    missing = ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(tmp_path / "nope.json"), code=2)
    assert f"cannot read the attestation {tmp_path / 'nope.json'}: No such file or directory" in missing.stderr


def test_attest_bytes_are_the_canonical_hash(ada):
    import hashlib

    memory_id = ada.remember("Bytes.", "--identity", "ada")
    data = request(ada, memory_id, "foundational")
    expected = hashlib.sha256(b"memory-attestation/v1\0" + memory_id.encode() + b"\0foundational\0"
                              + data["content_sha256"].encode()).hexdigest()
    assert data["canonical_bytes"] == expected
    assert ada.run("attest-bytes", memory_id[:8], "--tier", "foundational").stdout.strip() == expected
