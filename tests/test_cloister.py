"""The whole Cloister of the constitution (§IX.3, §IX.6): made by init, added by init --force."""

from souveraine.bootstrap import init
from souveraine.care.doctor import doctor
from souveraine.store import layout, notes
from souveraine.store.memory import Memory
from tests.support import assert_clean, git

NAMED = [layout.PERSONA_IDENTITY, layout.PERSONA_PRINCIPLES, layout.PERSONA_INFRASTRUCTURE, layout.HUMAN_IDENTITY,
         *layout.HUMAN_PREFS, layout.RELATIONSHIPS, *layout.DOMAIN_INDEXES.values(), layout.CONVENTIONS,
         layout.PROJECT_ARCHITECTURE, layout.PROJECT_CONVENTIONS, layout.PROJECT_DO_NOTS, layout.PROJECT_LEARNINGS,
         layout.STATE, layout.INNER_VOICE, layout.PEOPLE_INDEX]
FOLDERS = [layout.ARCHITECTURE_DETAIL, layout.WORK, layout.REPORTS, layout.DECISIONS, layout.TROUBLESHOOTING]
NEW = [layout.PERSONA_INFRASTRUCTURE, layout.HUMAN_IDENTITY, *layout.HUMAN_PREFS, layout.RELATIONSHIPS,
       *layout.DOMAIN_INDEXES.values(), layout.TROUBLESHOOTING + "_index.md", layout.DECISIONS + "_index.md"]


def test_init_makes_every_named_file_with_a_description_and_a_template(memory):
    for rel in NAMED:
        note = notes.read(memory.root / rel)
        assert str(note.get("description") or "").strip(), rel
        assert note.body.lstrip().startswith("# "), f"{rel} has no title"
    for folder in FOLDERS:
        assert (memory.root / folder).is_dir(), folder
    assert set(layout.DOMAIN_INDEXES) == {"work", "learning", "health", "finance"}


def test_the_new_files_are_short_and_pinned_where_the_seed_pins_them(memory):
    for rel in NEW:
        body = notes.read(memory.root / rel).body
        assert len(body.strip().splitlines()) <= 12, f"{rel}: a template says what belongs there, briefly"
    assert all(layout.is_pinned(rel) for rel in NEW if rel.startswith("system/"))
    assert layout.weight(layout.DECISIONS + "0001-x.md") == layout.PROGRESSIVE
    assert layout.weight(layout.TROUBLESHOOTING + "flaky-clock.md") == layout.ON_DEMAND
    assert layout.weight("system/domains/work.md") == layout.PINNED


def test_a_fresh_memory_has_no_doctor_finding_and_its_links_resolve(memory):
    assert [f.to_dict() for f in doctor(memory)] == []


def test_the_wake_names_unwritten_templates_and_pins_written_ones_in_the_seeds_order(memory):
    from souveraine.wake import wake

    fresh = wake(memory, bandwidth="high")
    [named] = [item for item in fresh.to_dict()["system"] if item["path"] == "system/"]
    assert named["unwritten"] == [p for p in [layout.PERSONA_INFRASTRUCTURE, layout.HUMAN_IDENTITY, layout.PREFS_COMMUNICATION,
                                              layout.PREFS_TOPICS, layout.PREFS_WORKFLOW, layout.RELATIONSHIPS,
                                              layout.PROJECT_ARCHITECTURE, layout.PROJECT_CONVENTIONS,
                                              layout.PROJECT_DO_NOTS, layout.PROJECT_LEARNINGS,
                                              *sorted(layout.DOMAIN_INDEXES.values())]]
    assert "Not written yet (each says what belongs in it): `system/persona/infrastructure.md`" in fresh.markdown()
    assert "Habits, hours, how much initiative" not in fresh.markdown()
    with memory.change("feat(memory): the agent writes what it learned") as change:
        for rel in layout.GUIDED:
            change.append(rel, "\n- Written by the agent.\n")
    paths = [item["path"] for item in wake(memory, bandwidth="high").to_dict()["system"]]
    assert "system/" not in paths
    assert paths.index(layout.PERSONA_INFRASTRUCTURE) < paths.index(layout.HUMAN_IDENTITY) \
        < paths.index(layout.PREFS_WORKFLOW) < paths.index(layout.PROJECT_ARCHITECTURE) \
        < paths.index(layout.DOMAIN_INDEXES["work"]) < paths.index(layout.CONVENTIONS) < paths.index(layout.STATE)
    assert layout.TROUBLESHOOTING + "_index.md" not in paths


def test_force_adds_the_cloister_to_an_older_memory_and_touches_nothing_there(tmp_path):
    root = init(tmp_path / "m", identity="ada").root
    for rel in NEW:
        git(root, "rm", "-q", rel)
    (root / "system/human").mkdir(exist_ok=True)
    (root / "system/human/prefs.md").write_text("---\ndescription: mine\n---\n# Prefs\n\n- Tea, never coffee.\n")
    (root / layout.PREFS_TOPICS).parent.mkdir(parents=True, exist_ok=True)
    (root / layout.PREFS_TOPICS).write_text("---\ndescription: my topics\n---\n# Mine\n\n- Birds.\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fix(memory): an older memory's layout")
    kept = {rel: (root / rel).read_bytes() for rel in ("system/human/prefs.md", layout.PREFS_TOPICS, layout.STATE)}

    result = init(root, force=True)

    assert sorted(result.written) == sorted(set(NEW) - {layout.PREFS_TOPICS})
    assert layout.PREFS_TOPICS in result.skipped
    assert {rel: (root / rel).read_bytes() for rel in kept} == kept
    assert git(root, "log", "-1", "--format=%s").strip() == "fix(memory): restore missing layout files"
    assert sorted(git(root, "show", "--name-only", "--format=", "HEAD").split()) == sorted(result.written)
    assert_clean(root)
    again = init(root, force=True)
    assert again.written == [] and git(root, "log", "-1", "--format=%s").strip() == "fix(memory): restore missing layout files"


def test_a_preference_is_routed_into_the_human_prefs(memory):
    from souveraine.care import rules

    done = rules.remember_to(memory, "Ada prefers short answers")
    assert done["path"] in layout.HUMAN_PREFS
    assert "- Ada prefers short answers (" in Memory(memory.root).read_text(done["path"])
    seed = rules.remember_to(memory, "Never schedule meetings before 10am")    # the seed's own example, §IX.6.4
    assert seed["path"] == layout.PREFS_WORKFLOW
    assert Memory(memory.root).read_text(layout.PREFS_WORKFLOW).rstrip().endswith("- Never schedule meetings before 10am ("
                                                                                  + seed["line"].rsplit("(", 1)[1])
