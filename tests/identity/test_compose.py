"""Composition: declared + constitutive patches + foundational patches, each in elevation order."""

import json

import pytest

from souveraine.errors import UsageError
from souveraine.identity import compose, elevation, memories, witness
from tests.support import assert_clean, git


@pytest.fixture
def witnessed(memory, outsider):
    """A way to elevate a new memory of ``identity``, signed by the outsider when constitutive."""

    def elevate(text, tier, identity="ada", **patch):
        made = memories.remember(memory, text, identity=identity)
        note = memories.load(memory, made["id"])[1]
        signed = [witness.make(outsider, made["id"], tier, note["content_sha256"])] if tier == "constitutive" else []
        elevation.elevate(memory, made["id"], tier, patch=patch, attestations=signed)
        return made

    def sign(memory_id, tier):
        note = memories.load(memory, memory_id)[1]
        return witness.make(outsider, note["id"], tier, note["content_sha256"])

    elevate.did, elevate.sign = outsider.did, sign
    return elevate


def test_constitutive_first_then_foundational_each_in_elevation_order(memory, witnessed):
    m1 = witnessed("First lesson.", "foundational", walls_add=["Check twice"], register_append="careful")
    m2 = witnessed("Witnessed vow.", "constitutive", walls_add=["Keep my word"], register_append="steady")
    m3 = witnessed("Second lesson.", "foundational", walls_add=["Ask first", "check  TWICE"], subagents_add=["critic"])
    m4 = witnessed("Second vow.", "constitutive", walls_add=["keep my word"], wake_text_append="I am here.")
    view = compose.foundations(memory, "ada")
    assert [item["id"] for item in view["shaped_by"]] == [m2["id"], m4["id"], m1["id"], m3["id"]]
    assert [item["order"] for item in view["shaped_by"]] == [2, 4, 1, 3]
    assert compose.effective(memory, "ada") == {
        "register": "steady\ncareful", "walls": ["Keep my word", "Check twice", "Ask first"],
        "subagents": ["critic"], "wake_text": "I am here."}
    assert view["shaped_by"][0]["attesters"] == [witnessed.did]
    assert view["shaped_by"][2]["patch"] == {"register_append": "careful", "walls_add": ["Check twice"]}
    assert_clean(memory.root)


def test_declared_expression_comes_first_and_is_not_repeated(memory, witnessed):
    from souveraine.identity import identities

    identities.create(memory, "cleo", register="dry", walls=["No gossip"], wake_text="Morning.")
    witnessed("Cleo learns.", "foundational", identity="cleo", walls_add=["no  gossip", "Be brief"])
    assert compose.effective(memory, "cleo") == {"register": "dry", "walls": ["No gossip", "Be brief"],
                                                 "subagents": [], "wake_text": "Morning."}


def test_a_later_memory_deprecates_a_wall_as_its_own_event(memory, witnessed):
    first = witnessed("Old rule.", "foundational", walls_add=["Never work weekends"])
    later = witnessed("New season.", "foundational", walls_deprecate=["never work weekends"])
    assert compose.effective(memory, "ada")["walls"] == []
    assert memories.load(memory, first["id"])[1]["expression_patch_walls_add"] == ["Never work weekends"]
    traced = compose.trace(memory, "weekends")
    assert [(t["kind"], t["source"]["memory_id"], t["added_by"]["memory_id"]) for t in traced] == \
        [("deprecated_walls", later["id"], first["id"])]


def test_only_memories_bound_to_the_identity_take_part(memory, witnessed):
    from souveraine.identity import identities

    identities.create(memory, "bob")
    witnessed("Bob's lesson.", "foundational", identity="bob", walls_add=["Bob's wall"])
    plain = memories.remember(memory, "A project fact.")
    elevation.elevate(memory, plain["id"], "foundational")
    assert compose.effective(memory, "ada")["walls"] == []
    assert compose.effective(memory, "bob")["walls"] == ["Bob's wall"]
    with pytest.raises(UsageError, match="bound to no identity, so its patch would shape nobody"):
        elevation.elevate(memory, memories.remember(memory, "Another fact.")["id"], "foundational",
                          patch={"walls_add": ["x"]})


def test_reading_the_expression_does_not_scan_memories(memory, witnessed):
    witnessed("A lesson.", "foundational", walls_add=["Slow down"])
    (memory.root / "memories" / "2020-01-01-broken-00000000.md").write_text("---\nkey: [unclosed\n---\nx\n")
    assert compose.effective(memory, "ada")["walls"] == ["Slow down"]


def test_raising_foundational_to_constitutive_keeps_the_patch_and_moves_it_last(memory, witnessed):
    first = witnessed("A lesson.", "foundational", walls_add=["Slow down"])
    second = witnessed("Another.", "foundational", walls_add=["Breathe"])
    with pytest.raises(UsageError, match="already carries its patch"):
        elevation.elevate(memory, first["id"], "constitutive", patch={"walls_add": ["new"]})
    with pytest.raises(UsageError, match="already foundational; a memory is only ever raised"):
        elevation.elevate(memory, second["id"], "foundational")
    elevation.elevate(memory, first["id"], "constitutive", attestations=[witnessed.sign(first["id"], "constitutive")])
    shaped = compose.foundations(memory, "ada")["shaped_by"]
    assert [(i["id"], i["tier"], i["order"]) for i in shaped] == [(first["id"], "constitutive", 2), (second["id"], "foundational", 1)]
    assert compose.effective(memory, "ada")["walls"] == ["Slow down", "Breathe"]


def test_effective_md_changes_in_every_elevation_commit(memory, witnessed):
    witnessed("One.", "foundational", walls_add=["One wall"])
    witnessed("Two.", "constitutive", walls_add=["Two wall"])
    elevations = [line.split()[0] for line in git(memory.root, "log", "--format=%H %s").splitlines() if " elevate " in line]
    assert len(elevations) == 2
    for sha in elevations:
        assert "system/persona/effective.md" in git(memory.root, "show", "--name-only", "--format=", sha).split()
    text = (memory.root / "system/persona/effective.md").read_text()
    assert text.index("Two wall") < text.index("One wall")
    from souveraine.store import notes

    meta = notes.read(memory.root / "system/persona/effective.md").meta
    assert all(isinstance(v, (str, bool)) or all(isinstance(i, str) for i in v) for v in meta.values())
    for link in meta["shaped_by"]:
        assert (memory.root / (link.strip("[]") + ".md")).is_file()


def test_why_names_the_memory_date_and_witness(memory, witnessed, invoke):
    made = witnessed("The day I promised.", "constitutive", walls_add=["I keep my word"])
    result = invoke("why", "keep my")
    assert result.exit_code == 0
    assert result.stdout.startswith("ada · walls: I keep my word\n")
    assert f"memory {made['id'][:8]} (constitutive, elevated " in result.stdout and witnessed.did in result.stdout
    data = json.loads(invoke("why", "keep my", "--json").stdout)
    assert data[0]["source"]["path"] == made["path"] and data[0]["source"]["attesters"] == [witnessed.did]
    none = invoke("why", "nothing like this", "--json")
    assert none.exit_code == 0 and json.loads(none.stdout) == []
    assert "nothing in the effective expression mentions" in invoke("why", "nothing like this").stderr
