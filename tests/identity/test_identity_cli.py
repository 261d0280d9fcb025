"""`identity`, `covenant` and `witness` on the command line."""

import json

from tests.support import assert_clean, git


def test_init_identity_creates_it_in_the_bootstrap_commit(memory, invoke):
    assert git(memory.root, "log", "--format=%s").splitlines() == ["feat(init): bootstrap memory"]
    listed = json.loads(invoke("identity", "list", "--json").stdout)
    assert [(i["handle"], i["status"]) for i in listed] == [("ada", "active")]
    assert listed[0]["did"].startswith("did:key:z6Mk")
    assert "## ada" in (memory.root / "system/persona/effective.md").read_text()


def test_create_show_export_and_default_list(memory, invoke):
    result = invoke("identity", "create", "cleo", "--register", "dry", "--wall", "No gossip", "--wall", "no gossip",
                    "--subagent", "critic", "--wake-text", "Morning.")
    assert result.exit_code == 0 and result.stdout.startswith("did:key:z6Mk")
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(identity): create identity cleo"
    assert_clean(memory.root)
    view = json.loads(invoke("identity", "show", "cleo", "--json").stdout)
    assert view["declared"] == {"register": "dry", "walls": ["No gossip"], "subagents": ["critic"], "wake_text": "Morning."}
    assert view["shaped_by"] == [] and view["effective"] == view["declared"]
    assert "shaped by (constitutive first" in invoke("identity", "show", "cleo").stdout
    card = json.loads(invoke("identity", "export", "cleo").stdout)
    assert card["did"] == view["did"] and card["project_id"] == memory.project_id
    assert card["keys"][0]["id"] == f"{view['did']}#{view['did'][8:]}"
    bare = invoke("identity")
    assert bare.exit_code == 0 and [line.split("\t")[0] for line in bare.stdout.splitlines()] == ["ada", "cleo"]
    again = invoke("identity", "create", "cleo")
    assert again.exit_code == 1 and "identity 'cleo' already exists" in again.stderr
    assert invoke("identity", "create", "Bad Name").exit_code == 2


def test_covenant_add_by_flags_list_and_revoke(memory, invoke):
    from souveraine.identity import keys

    other = keys.Keypair.generate()
    entry = f"{other.key_id}={other.public.hex()}"
    result = invoke("covenant", "add", "--did", other.did, "--key", entry, "--project", "b0b0b0b0-0000-4000-8000-000000000000",
                    "--handle", "bea", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["keys"] == {other.key_id: other.did[8:]}
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(covenant): enter covenant with bea"
    listed = json.loads(invoke("covenant", "list", "--json").stdout)
    assert [(c["handle"], c["status"]) for c in listed] == [("bea", "active")]
    assert invoke("covenant").stdout.startswith("bea\tactive\tdid:key:")
    assert invoke("covenant", "revoke", "bea").exit_code == 0
    assert json.loads(invoke("covenant", "list", "--json").stdout)[0]["status"] == "revoked"
    duplicate = invoke("covenant", "add", "--did", other.did, "--key", entry, "--project", "c0c0c0c0-0000-4000-8000-000000000000",
                       "--handle", "other")
    assert duplicate.exit_code == 1 and "already in the covenant 'bea'" in duplicate.stderr
    renewed = invoke("covenant", "add", "--did", other.did, "--key", entry, "--project", "b0b0b0b0-0000-4000-8000-000000000000",
                     "--handle", "bea", "--json")
    assert json.loads(renewed.stdout)["status"] == "active"
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(covenant): renew covenant with bea"
    assert_clean(memory.root)


def test_covenant_add_checks_its_input(invoke, tmp_path):
    assert "give --card FILE, or --did DID" in invoke("covenant", "add").stderr
    bad = invoke("covenant", "add", "--did", "did:web:x", "--key", "a=b", "--project", "p", "--json")
    assert bad.exit_code == 2 and json.loads(bad.stdout)["error"] == "invalidDid"
    card = tmp_path / "card.json"
    card.write_text("{}")
    assert "is not one 'souveraine identity export' prints" in invoke("covenant", "add", "--card", str(card)).stderr
    assert invoke("covenant", "revoke", "nobody").exit_code == 2


def test_witness_sign_checks_its_target(invoke):
    result = invoke("witness", "sign", "--memory-id", "abc", "--tier", "constitutive", "--content-sha256", "0" * 64)
    assert result.exit_code == 2 and "'abc' is not a memory id (a full uuid is signed, not a prefix)" in result.stderr
