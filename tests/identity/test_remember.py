"""`remember`: one episodic memory per call, bound by the seed's rule."""

import json
import uuid

from souveraine.identity import compose, identities, memories
from souveraine.store import notes
from tests.support import assert_clean, git


def _note(memory, memory_id):
    return memories.load(memory, memory_id)[1]


def test_remember_prints_the_id_and_commits_one_file(memory, invoke):
    result = invoke("remember", "Ada likes short answers. Always.", "--key", "prefs", "--source", "[[system/state]]")
    assert result.exit_code == 0 and result.stderr == ""
    memory_id = result.stdout.strip()
    uuid.UUID(memory_id)
    note = _note(memory, memory_id)
    assert (note["tier"], note["identity_id"], note["key"], note["visibility"]) == ("episodic", "", "prefs", "public")
    assert note["description"] == "Ada likes short answers."
    assert note["content_sha256"] == memories.content_sha256("Ada likes short answers. Always.")
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(memory): remember Ada likes short answers."
    assert_clean(memory.root)


def test_remember_reads_stdin_and_speaks_json(memory, invoke):
    result = invoke("remember", "-", "--json", "--visibility", "private", input="From the pipe.\n\n")
    data = json.loads(result.stdout)
    assert _note(memory, data["id"]).body == "From the pipe.\n"
    assert data["path"].startswith("memories/") and data["path"].endswith(f"-{data['id'][:8]}.md")
    assert _note(memory, data["id"])["visibility"] == "private"


def test_agent_id_binds_only_an_active_identity_of_this_memory(memory, invoke):
    ada = identities.load(memory, "ada")
    bound = invoke("remember", "Mine.", "--agent-id", ada.id).stdout.strip()
    stranger = invoke("remember", "A stranger's.", "--agent-id", str(uuid.uuid4())).stdout.strip()
    garbage = invoke("remember", "Garbage id.", "--agent-id", "not-a-uuid").stdout.strip()
    assert _note(memory, bound)["identity_id"] == ada.id
    assert _note(memory, stranger)["identity_id"] == "" and _note(memory, garbage)["identity_id"] == ""
    path = memory.root / "identities/ada.md"
    note = notes.read(path)
    note["status"] = "retired"
    notes.write(path, note)
    (memory.root / compose.EFFECTIVE).write_text(compose.render(memory))   # generated: the laws check it
    git(memory.root, "commit", "-qam", "feat(identity): retire ada")
    retired = invoke("remember", "After retirement.", "--agent-id", ada.id).stdout.strip()
    assert _note(memory, retired)["identity_id"] == ""
    refused = invoke("remember", "Bound by name.", "--identity", "ada")
    assert refused.exit_code == 1 and "identity ada is retired" in refused.stderr


def test_remember_refuses_empty_text_unknown_identity_and_a_forged_witness_section(invoke):
    assert invoke("remember", "  ").exit_code == 2
    unknown = invoke("remember", "x", "--identity", "zed")
    assert unknown.exit_code == 2 and "no identity 'zed' here (known: ada)" in unknown.stderr
    forged = invoke("remember", "Text\n\n## Attestations\n\n```json\n[]\n```\n")
    assert forged.exit_code == 2 and "which only the witness writes" in forged.stderr


def test_the_library_call_persist_makes_is_unchanged(memory):
    with memory.change("chore(journal): a turn and a promise") as change:
        made = memories.remember(memory, "I'll save that.", change=change, source="[[journal]]")
    assert _note(memory, made["id"])["source"] == "[[journal]]"
    assert_clean(memory.root)


def test_hashed_content_excludes_the_attestations_section():
    body = memories.join("The text.", [{"attester_did": "did:key:z6Mk"}])
    text, held = memories.split(body)
    assert memories.canonical(text) == "The text.\n" and held == [{"attester_did": "did:key:z6Mk"}]
    assert memories.split("Only text.\n## Attestations in prose\n") == ("Only text.\n## Attestations in prose\n", None)
