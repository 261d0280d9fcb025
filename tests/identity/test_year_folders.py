"""Memories in year folders: every reader finds a memory written flat by an older version, and
doctor --fix moves it into its year (pure renames) and points the links at it there, with
every witness still holding."""

import json

import pytest

from souveraine.care import years
from souveraine.identity import memories
from souveraine.store import layout
from tests.identity.conftest import request, sign_as
from tests.laws.steps import git_run
from tests.support import git


def elevate(ada, bea, tmp_path, memory_id, tier, wall):
    attestation = sign_as(bea, tmp_path, memory_id, tier, request(ada, memory_id, tier)["content_sha256"])
    return ada.json("elevate", memory_id, "--tier", tier, "--wall", wall, "--attestation", str(attestation))


def subjects(party, span) -> list[str]:
    return git(party.root, "log", "--format=%s", span).splitlines()[::-1]


def findings(party, check=None) -> list[dict]:
    found = json.loads(party.run("doctor", "--json", code=None, clean=False).stdout)
    return [f for f in found if check is None or f["check"] == check]


def made_flat(ada, bea, tmp_path, monkeypatch, flat_fixture_off):
    """ada's memory as an older version left it: three memories in memories/ itself, one
    constitutive and one foundational (witnessed by bea), linked from a person's note and
    from the append-only inner voice."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2025-06-01T10:00:00+00:00")
    old = ada.remember("The summer I learned to sail.", "--identity", "ada")
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T10:00:00+00:00")
    deep = ada.remember("Bea stayed with me the night the build broke.", "--identity", "ada")
    plain = ada.remember("The kettle is in the left cupboard.", "--identity", "ada")
    elevate(ada, bea, tmp_path, deep, "constitutive", "I do not leave a friend alone")
    elevate(ada, bea, tmp_path, old, "foundational", "I keep a steady hand")
    paths = {i: memories.find(ada.memory, i) for i in (old, deep, plain)}
    assert all(p.count("/") == 1 for p in paths.values())            # flat, as older versions wrote
    kettle = paths[plain].removesuffix(".md")
    (ada.root / "people").mkdir(exist_ok=True)
    (ada.root / "people/bea.md").write_text(f"---\ndescription: Bea\n---\n# Bea\n\nSee [[{kettle}|the kettle]] and "
                                            f"[[{paths[deep].removesuffix('.md')}#Attestations]].\n")
    with (ada.root / "people/_index.md").open("a") as index:
        index.write("- [[people/bea|Bea]]\n")
    with (ada.root / "system/metacognition/subconscious.md").open("a") as voice:
        voice.write(f"\n- 2026-11-30 10:00 · low · Saved it as [[{kettle}]].\n")
    git(ada.root, "add", "-A")
    git(ada.root, "commit", "-q", "-m", "docs(memory): Bea, and a thought")
    flat_fixture_off()
    return old, deep, plain, paths


@pytest.fixture
def older(covenanted, tmp_path, monkeypatch):
    ada, bea = covenanted
    real = layout.memory_path
    monkeypatch.setattr(layout, "memory_path", lambda name: f"memories/{name}")
    made = made_flat(ada, bea, tmp_path, monkeypatch, lambda: monkeypatch.setattr(layout, "memory_path", real))
    return ada, bea, made


def test_readers_find_memories_written_flat(older):
    ada, bea, (old, deep, plain, paths) = older
    woke = ada.json("wake", "--identity", "ada")
    assert [m["path"] for m in woke["shaped_by"]] == [paths[deep], paths[old]]
    assert [m["path"] for m in woke["memory"]["recent"]] == [paths[plain], paths[deep], paths[old]]
    assert [h["path"] for h in ada.json("recall", "kettle")][:1] == [paths[plain]]
    assert ada.json("status")["memories"] == {"episodic": 1, "foundational": 1, "constitutive": 1}
    ada.run("verify")
    new = ada.remember("A memory written now goes to its year.")
    assert memories.find(ada.memory, new).startswith("memories/2026/")
    assert elevate(ada, bea, ada.root.parent, plain, "foundational", "I keep the kitchen tidy")["path"] == paths[plain]
    assert ada.json("forget", old[:8])["forgotten"][0]["path"] == paths[old]
    identity = (ada.root / "identities/ada.md").read_text()
    assert f"[[{paths[plain][:-3]}]]" in identity and f"[[{paths[old][:-3]}]]" not in identity
    ada.run("verify")


def test_doctor_fix_moves_each_memory_into_its_year_and_points_the_links_there(older):
    ada, bea, (old, deep, plain, paths) = older
    before = ada.head()
    listed = findings(ada, "year-folders")
    assert [(f["severity"], f["fixable"], f["data"]) for f in listed] == [("warning", True, {"memories": 3, "movable": 3})]

    ada.run("doctor", "--fix")
    assert subjects(ada, f"{before}..HEAD") == ["refactor(memory): move 3 memories of 2025–2026 into their year folders",
                                               "fix(memory): point 4 links at memories' year folders"]
    renames = git(ada.root, "diff", "--name-status", "-M100%", f"{before}", "HEAD~1").split("\n")
    assert sorted(line.split("\t")[0] for line in renames if line) == ["R100"] * 3     # renames only
    moved = {i: memories.find(ada.memory, i) for i in (old, deep, plain)}
    assert moved == {i: layout.memory_path(p.split("/")[1]) for i, p in paths.items()}
    assert moved[old].startswith("memories/2025/") and moved[plain].startswith("memories/2026/")
    identity = (ada.root / "identities/ada.md").read_text()
    assert f"[[{moved[deep][:-3]}]]" in identity and f"[[{moved[old][:-3]}]]" in identity
    assert f"[[{paths[deep][:-3]}]]" not in identity
    assert f"[[{moved[deep][:-3]}]]" in (ada.root / "system/persona/effective.md").read_text()
    person = (ada.root / "people/bea.md").read_text()
    assert f"[[{moved[plain][:-3]}|the kettle]]" in person and f"[[{moved[deep][:-3]}#Attestations]]" in person
    assert f"[[{paths[plain][:-3]}]]" in (ada.root / "system/metacognition/subconscious.md").read_text()  # append-only

    ada.run("verify", "--full")                                       # exit 0: no breach in the whole history
    left = findings(ada)
    assert not [f for f in left if f["check"] in ("broken-link",) or f["check"] == "year-folders" and f["severity"] != "info"]
    assert [f["data"] for f in left if f["check"] == "year-folders"] == [{"notes": {"system/metacognition/subconscious.md": 1}}]
    head = ada.head()
    ada.run("doctor", "--fix")
    assert ada.head() == head                                       # nothing left to do: no commit

    woke = ada.json("wake", "--identity", "ada")
    assert [m["path"] for m in woke["shaped_by"]] == [moved[deep], moved[old]]
    assert [h["path"] for h in ada.json("recall", "kettle")][:1] == [moved[plain]]
    raised = elevate(ada, bea, ada.root.parent, plain, "foundational", "I keep the kitchen tidy")
    assert raised["path"] == moved[plain]
    assert ada.json("forget", old[:8])["forgotten"][0]["path"] == moved[old]
    assert f"[[{moved[plain][:-3]}]]" in (ada.root / "identities/ada.md").read_text()
    ada.run("verify")


def test_a_migration_cut_short_leaves_its_batch_as_it_was_and_resumes(older, monkeypatch):
    ada, bea, (old, deep, plain, paths) = older
    before = ada.head()
    monkeypatch.setattr(years, "BATCH", 1)
    real, calls = years.os.rename, []

    def rename(a, b, **kwargs):
        if str(b).endswith(".md") and "/memories/20" in str(b):     # a memory moving to its year
            calls.append(a)
            if len(calls) == 3:
                raise OSError("disk full")
        real(a, b, **kwargs)

    monkeypatch.setattr(years.os, "rename", rename)
    with pytest.raises(OSError):
        years.migrate(ada.memory)
    assert len(subjects(ada, f"{before}..HEAD")) == 2                 # two whole batches; the third undone
    assert git(ada.root, "status", "--porcelain") == ""
    assert sum(1 for p in paths.values() if (ada.root / p).exists()) == 1
    monkeypatch.setattr(years.os, "rename", real)
    done = years.migrate(ada.memory)
    assert done["moved"] == 1 and done["links"] == 4
    assert years.pending(ada.memory) == [] and years.stale_links(ada.memory) == {}
    ada.run("verify")


def test_a_person_moving_a_witnessed_memory_by_hand_is_judged_by_the_hooks(older):
    ada, bea, (old, deep, plain, paths) = older
    name = paths[deep].split("/")[1]
    (ada.root / "memories/2026").mkdir()
    git(ada.root, "mv", paths[deep], f"memories/2026/{name}")
    done = git_run(ada.root, "commit", "-q", "-m", "refactor(memory): move a memory into memories/2026/")
    assert done.returncode == 0, done.stderr                       # a move: its witness and shaped_by hold
    ada.run("verify")
    (ada.root / f"memories/2026/{name}").write_text((ada.root / f"memories/2026/{name}").read_text() + "\nMore.\n")
    git(ada.root, "mv", f"memories/2026/{name}", paths[deep])
    done = git_run(ada.root, "commit", "-q", "-am", "refactor(memory): move it back")
    assert done.returncode == 1 and "text no longer matches its content_sha256" in done.stderr   # an edit, not a move


KILLED = """
import os, signal, sys
from souveraine.care import years
from souveraine.laws import inprocess
from souveraine.store.memory import Memory

inprocess.enable()
years.BATCH = 2
real, moved = os.rename, []

def rename(a, b, **kwargs):
    if str(b).endswith(".md") and "/memories/20" in str(b):
        moved.append(a)
        if len(moved) == 2:
            os.kill(os.getpid(), signal.SIGKILL)     # midway through the first batch: one memory moved
    real(a, b, **kwargs)

os.rename = rename
years.migrate(Memory(sys.argv[1]))
"""


def test_a_migration_killed_midway_is_undone_by_the_next_command_and_resumed(older):
    import os
    import subprocess
    import sys

    ada, bea, (old, deep, plain, paths) = older
    before = ada.head()
    done = subprocess.run([sys.executable, "-c", KILLED, str(ada.root)], capture_output=True, text=True,
                          env={**os.environ, "XDG_CONFIG_HOME": str(ada.config)})
    assert done.returncode == -9, done.stderr
    assert ada.head() == before
    assert not (ada.root / paths[old]).exists()                 # moved, not committed: the kill came at the next
    ada.run("doctor", "--fix")                  # takes the lock: puts the batch back, then does it whole
    assert subjects(ada, f"{before}..HEAD") == ["refactor(memory): move 3 memories of 2025–2026 into their year folders",
                                               "fix(memory): point 4 links at memories' year folders"]
    assert years.pending(ada.memory) == []
    record = ada.root / ".souveraine/changes"
    assert not record.exists() or not any(record.iterdir())          # the killed change's record is gone
    ada.run("verify")


def test_a_memory_edited_and_not_committed_stays_where_it_is(older):
    ada, bea, (old, deep, plain, paths) = older
    edited = ada.root / paths[plain]
    edited.write_text(edited.read_text() + "Written in an editor, not committed yet.\n")
    assert [f["data"] for f in findings(ada, "year-folders")] == [{"memories": 3, "movable": 2}]
    ada.run("doctor", "--fix", clean=False)
    assert edited.exists() and "not committed yet" in edited.read_text()          # nothing of it lost
    assert [(f["fixable"], f["data"]) for f in findings(ada, "year-folders")] == [(False, {"memories": 1, "movable": 0})]
    assert git(ada.root, "status", "--porcelain").split() == ["M", paths[plain]]
