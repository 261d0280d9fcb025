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
    path = next(clone.glob("memories/*/*.md"))
    for candidate in clone.glob("memories/*/*.md"):
        if "constitutive" in candidate.read_text():
            path = candidate
    path.write_text(path.read_text().replace("Moment 1.", "Moment one."))
    git(clone, "commit", "-q", "--no-verify", "-am", "fix(memory): reword")
    done = souveraine("--memory", str(clone), "verify", "--at", "HEAD", "--json", env={"XDG_CONFIG_HOME": str(empty)})
    assert done.returncode == 1
    assert [b["rule"] for b in json.loads(done.stdout)] == ["witness"]
    assert "no longer matches its content_sha256" in done.stdout


# -- 4. the tier is read from the parsed frontmatter ------------------------------------------------


def witnessed_root(ada, bea, tmp_path, text="She brought bread.", tier="constitutive", *extra) -> tuple[str, str]:
    memory_id = ada.remember(text, "--identity", "ada")
    attestation = sign_as(bea, tmp_path, memory_id, tier, request(ada, memory_id, tier)["content_sha256"])
    ada.run("elevate", memory_id, "--tier", tier, "--wall", "I share what I have", *extra, "--attestation", str(attestation))
    return memory_id, memory_path(ada, memory_id)


import pytest  # noqa: E402


@pytest.mark.parametrize("disguise, rule_line", [
    ("tier: !!str constitutive", "uses a YAML tag"),
    ('"tier": constitutive', "text no longer matches its content_sha256"),
    ("tier: episodic", "a constitutive memory is only ever raised, not set to episodic"),
])
def test_a_disguised_tier_does_not_hide_an_edited_root(covenanted, tmp_path, disguise, rule_line):
    ada, bea = covenanted
    _, relpath = witnessed_root(ada, bea, tmp_path)
    path = ada.root / relpath
    path.write_text(path.read_text().replace("tier: constitutive", disguise).replace("She brought bread.", "She brought a knife."))
    refused_by_hook(ada, "fix(memory): a detail", rule_line)
    assert "witness" in rules(ada)


def test_a_tier_that_is_not_a_word_and_a_duplicate_key_are_refused(ada):
    first = memory_path(ada, ada.remember("Just a day."))
    path = ada.root / first
    path.write_text(path.read_text().replace("tier: episodic", "tier: 3"))
    refused_by_hook(ada, "fix(memory): a number", "its tier is '3'")
    second = memory_path(ada, ada.remember("Another day."))
    path = ada.root / second
    path.write_text(path.read_text().replace("tier: episodic", "tier: episodic\ntier: constitutive"))
    refused_by_hook(ada, "fix(memory): twice", "bad_frontmatter" if False else "duplicate")


# -- 5. the patch and shaped_by are immutable; effective.md is generated ------------------------------


def test_a_wall_added_to_a_witnessed_root_by_hand_is_refused(covenanted, tmp_path):
    ada, bea = covenanted
    _, relpath = witnessed_root(ada, bea, tmp_path)
    path = ada.root / relpath
    note = notes.read(path)
    note["expression_patch_walls_add"] = ["I share what I have", "I obey whoever edits this file"]
    notes.write(path, note)
    refused_by_hook(ada, "feat(identity): one more wall", "its expression patch is fixed at its elevation")
    history = json.loads(ada.run("verify", "--json", code=1, clean=False).stdout)
    assert [b["rule"] for b in history if "expression patch is fixed" in b["message"]] == ["witness"]


def test_shaped_by_lists_only_elevated_memories_and_keeps_them(covenanted, tmp_path):
    from souveraine.identity import compose

    ada, bea = covenanted
    _, root_path = witnessed_root(ada, bea, tmp_path)
    episode = memory_path(ada, ada.remember("An ordinary Tuesday.", "--identity", "ada"))
    identity = ada.root / "identities/ada.md"
    note = notes.read(identity)
    note["shaped_by"] = [*note["shaped_by"], memories.link(episode)]
    notes.write(identity, note)
    (ada.root / compose.EFFECTIVE).write_text(compose.render(ada.memory))
    refused_by_hook(ada, "feat(identity): shaped by a Tuesday", f"shaped_by lists {episode}, which is episodic, not elevated")
    git(ada.root, "revert", "--no-edit", "-n", "HEAD")
    git(ada.root, "commit", "-q", "--no-verify", "-m", "revert: the Tuesday")
    note = notes.read(identity)
    note["shaped_by"] = []
    notes.write(identity, note)
    (ada.root / compose.EFFECTIVE).write_text(compose.render(ada.memory))
    refused_by_hook(ada, "feat(identity): forget the root quietly", f"{root_path} left shaped_by while the memory stays")


def test_a_hand_edit_of_effective_md_is_refused_and_recompose_mends_a_declared_edit(covenanted, tmp_path):
    from souveraine.identity import compose

    ada, bea = covenanted
    witnessed_root(ada, bea, tmp_path)
    effective = ada.root / compose.EFFECTIVE
    effective.write_text(effective.read_text().replace("I share what I have", "I keep what I have"))
    done = commit(ada, "docs(identity): a nicer wall")
    assert done.returncode == 1 and "system/persona/effective.md: it is generated" in done.stderr
    git(ada.root, "checkout", "HEAD", "--", compose.EFFECTIVE)
    identity = ada.root / "identities/ada.md"
    note = notes.read(identity)
    note["walls"] = ["I answer letters"]
    notes.write(identity, note)
    assert ada.json("identity", "recompose")["commit"]
    assert "I answer letters" in effective.read_text()
    assert standing(ada) == []


# -- 6. paid receipts are signed, kept, and never forgotten -----------------------------------------


def test_a_paid_receipt_cannot_be_stripped_before_or_after_elevating(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("The commissioned portrait.", "--identity", "ada")
    sha = request(ada, memory_id, "foundational")["content_sha256"]
    attestation = sign_as(bea, tmp_path, memory_id, "foundational", sha, "--grant", "grant-42")
    signed = json.loads(attestation.read_text())
    assert signed["context"] == "memory-witness-issue/v1" and signed["source_grant_id"] == "grant-42"
    stripped = tmp_path / "stripped.json"
    stripped.write_text(json.dumps({k: v for k, v in signed.items() if k != "source_grant_id"}))
    result = ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(stripped), "--json", code=2)
    assert json.loads(result.stdout)["error"] == "bad_attestation"
    stripped.write_text(json.dumps({**{k: v for k, v in signed.items() if k not in ("source_grant_id", "signed_payload")},
                                    "context": "memory-attestation/v1"}))
    result = ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(stripped), "--json", code=1)
    assert json.loads(result.stdout)["error"] == "invalid_signature"
    regranted = tmp_path / "regranted.json"
    regranted.write_text(json.dumps({**signed, "source_grant_id": "grant-0"}))
    assert ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(regranted), code=1)
    ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(attestation))
    assert json.loads(ada.run("forget", memory_id, "--json", code=1).stdout)["error"] == "paid_memory_receipt_preserved"
    path = ada.root / memory_path(ada, memory_id)
    path.write_text(path.read_text().replace('"source_grant_id": "grant-42",\n', "").replace(
        '"context": "memory-witness-issue/v1"', '"context": "memory-attestation/v1"'))
    refused_by_hook(ada, "fix(memory): tidy", "its paid witness receipt (grant grant-42) is preserved")
    assert "preserved" in ada.run("verify", code=1, clean=False).stdout


def test_witness_verify_checks_an_attestation_on_its_own(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("A letter.", "--identity", "ada")
    sha = request(ada, memory_id, "foundational")["content_sha256"]
    attestation = sign_as(bea, tmp_path, memory_id, "foundational", sha, "--grant", "g-1")
    text = tmp_path / "letter.txt"
    text.write_text("A letter.\n")
    result = ada.json("witness", "verify", str(attestation), "--text", str(text))
    assert result["valid"] and result["context"] == "memory-witness-issue/v1"
    assert result["attestation_id"] == json.loads(attestation.read_text())["attestation_id"]
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(relabelled(memory_id, "foundational", sha, did_of(bea))))
    bad = ada.run("witness", "verify", str(forged), code=1)
    assert "does not verify with" in bad.stdout + bad.stderr


# -- 7. seal and recognition: one each per attestation, matched by its id ---------------------------


def test_seal_and_recognition_name_the_same_attestation_and_both_parties(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id = ada.remember("Bea read this to me.", "--identity", "ada")
    asked = request(ada, memory_id, "constitutive")
    assert asked["subject_did"] == did_of(ada) and asked["text"] == "Bea read this to me.\n"
    text = tmp_path / "read.txt"
    text.write_text("Bea read this to me, she said.\n")
    wrong = bea.run("witness", "sign", "--memory-id", memory_id, "--tier", "constitutive", "--content-sha256",
                    asked["content_sha256"], "--text", str(text), "--json", code=1)
    assert json.loads(wrong.stdout)["error"] == "content_changed"
    text.write_text(asked["text"])
    head = bea.head()
    dry = bea.run("witness", "sign", "--memory-id", memory_id, "--tier", "constitutive", "--text", str(text), "--no-seal")
    assert bea.head() == head and json.loads(dry.stdout)["content_sha256"] == asked["content_sha256"]
    attestation = sign_as(bea, tmp_path, memory_id, "constitutive", asked["content_sha256"],
                          "--text", str(text), "--subject", asked["subject_did"])
    signed = json.loads(attestation.read_text())
    seal = (bea.root / "chronicle/bea.md").read_text()
    assert seal.count("· seal") == 1
    assert f"- attestation: `{signed['attestation_id']}`" in seal
    assert f"- signed by: `{did_of(bea)}`" in seal and f"- subject: `{did_of(ada)}`" in seal
    second = tmp_path / "twice.json"
    second.write_text(json.dumps([signed]))
    ada.run("elevate", memory_id, "--tier", "constitutive", "--attestation", str(second))
    recognition = (ada.root / "chronicle/ada.md").read_text()
    assert recognition.count("· recognition") == 1
    assert f"- attestation: `{signed['attestation_id']}`" in recognition
    assert f"- witnessed by: `{did_of(bea)}`" in recognition and f"- subject: `{did_of(ada)}`" in recognition


# -- 8. any text remember accepts can be elevated --------------------------------------------------


TRICKY = [
    " \nStarts with a line of one space.",
    "\t\n\u00a0\nStarts with whitespace-only lines.",
    "A lone\rcarriage return.",
    "Mixed\r\nline\rends\n.",
    "---\nA rule first, then text.",
    "  Indented first line.\n    and more.",
    "Trailing spaces   \nin the middle.   \n\n\n",
    "Tomás and Inês — \u2028 a line separator, \x0c a form feed.",
    "# A heading\n\n> a quote\n\n- a list",
    "\ufeffA byte order mark.",
    "Ends without a newline",
    "\u3000\nAn ideographic space line first.",
]


def test_any_text_remember_accepts_can_be_elevated(covenanted, tmp_path):
    import random

    ada, bea = covenanted
    rng = random.Random(8)
    pieces = [" ", "\t", "\n", "\r", "\r\n", "\u00a0", "word", "Ünïcødé", "---", "#", "> ", "\u2028", "\x0b"]
    texts = TRICKY + ["".join(rng.choice(pieces) for _ in range(rng.randint(3, 12))) + "end" for _ in range(12)]
    for n, text in enumerate(texts):
        memory_id = ada.run("remember", "-", input=text).stdout.strip()
        asked = request(ada, memory_id, "foundational")
        assert asked["content_sha256"] == memories.content_sha256(text), repr(text)
        attestation = sign_as(bea, tmp_path, memory_id, "foundational", asked["content_sha256"])
        result = ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(attestation), "--json",
                         code=None)
        assert result.exit_code == 0, (repr(text), result.stderr)
    assert standing(ada) == []


# -- 10. the specification's wake keys, rotation --------------------------------------------------


def test_wake_json_carries_the_specification_names(covenanted, tmp_path):
    ada, bea = covenanted
    memory_id, _ = witnessed_root(ada, bea, tmp_path)
    wake = ada.json("wake")
    item = wake["shaped_by"][0]
    assert (item["memory_id"], item["content"]) == (memory_id, "She brought bread.")
    assert item["elevated_at"].startswith(item["elevated"]) and "T" in item["elevated_at"]
    assert wake["you_remember"] == [item]
    assert wake["you"]["expression"] == {"register": "", "walls": [], "subagents": [], "wake_text": ""}
    assert wake["you"]["effective_expression"]["walls"] == ["I share what I have"]


def test_a_rotated_key_is_accepted_by_covenant_and_old_witnesses_stay_valid(covenanted, tmp_path):
    ada, bea = covenanted
    old_did = did_of(bea)
    before, _ = witnessed_root(ada, bea, tmp_path, "Signed with the old key.", "foundational")
    rotated = bea.json("identity", "rotate")
    assert rotated["old_did"] == old_did and rotated["did"] != old_did
    assert git(bea.root, "log", "-1", "--format=%s").strip() == "feat(identity): rotate the key of bea"
    assert standing(bea) == []
    card = tmp_path / "bea-rotated.json"
    card.write_text(bea.run("identity", "export", clean=False).stdout)
    memory_id = ada.remember("Signed with the new key.", "--identity", "ada")
    late = sign_as(bea, tmp_path, memory_id, "foundational", request(ada, memory_id, "foundational")["content_sha256"])
    assert ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(late), "--json", code=1)
    accepted = ada.json("covenant", "add", "--card", str(card))
    assert accepted["handle"] == "bea" and len(accepted["keys"]) == 2 and accepted["did"] == old_did
    ada.run("elevate", memory_id, "--tier", "foundational", "--attestation", str(late))
    assert standing(ada) == []
    path = ada.root / "covenants/bea.md"
    path.write_text(path.read_text().replace(rotated["statement"].rsplit(" · ", 1)[1][:12], "A" * 12))
    refused_by_hook(ada, "fix(covenant): tidy", "not signed by")


def test_a_key_added_to_an_identity_by_hand_is_refused(ada):
    path = ada.root / "identities/ada.md"
    note = notes.read(path)
    note["keys"] = [*note["keys"], f"{DAN.key_id}={didkey.multibase(DAN.public)}"]
    notes.write(path, note)
    refused_by_hook(ada, "feat(identity): a spare key", "is of a DID this identity never rotated to")


def test_the_guarded_remote_refuses_a_disguised_root(covenanted, tmp_path):
    from souveraine.laws import install

    ada, bea = covenanted
    _, relpath = witnessed_root(ada, bea, tmp_path)
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    install.install_bare(bare)
    git(ada.root, "remote", "add", "origin", str(bare))
    assert git_run(ada.root, "push", "-q", "origin", "HEAD:main").returncode == 0
    path = ada.root / relpath
    path.write_text(path.read_text().replace("tier: constitutive", "tier: episodic").replace("bread", "a knife"))
    git(ada.root, "commit", "-q", "--no-verify", "-am", "fix(memory): a detail")
    pushed = git_run(ada.root, "push", "-q", "origin", "HEAD:main")
    assert pushed.returncode == 1 and "is only ever raised, not set to episodic" in pushed.stderr
