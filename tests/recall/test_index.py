import json
import sqlite3
import threading

import pytest

from souveraine.errors import Refused
from souveraine.recall import index, sources
from souveraine.recall.search import recall
from tests.recall.conftest import memory_note
from tests.support import assert_clean, git


def found(memory, words, **options) -> set[str]:
    return {hit.path for hit in recall(memory, words, **options).hits}


def same_as_rebuild(memory) -> None:
    """The index as updated holds exactly what a full rebuild from the files holds."""
    updated = index.snapshot(memory)
    index.rebuild(memory)
    assert index.snapshot(memory) == updated


@pytest.fixture
def seeded(memory, say, note):
    say(("2026-11-28T10:00:00", "user", "I started reading Piranesi, a book about a house of statues."),
        ("2026-11-28T10:00:30", "assistant", "Susanna Clarke wrote it; the halls are the world."))
    note("memories/2026-11-01-tea-0f3c9a1b.md", "I prefer genmaicha in the afternoon.", **memory_note())
    note("people/clara.md", "Clara, my sister, lives in Lyon.", aliases=["Clo"])
    index.refresh(memory)
    return memory


@pytest.fixture
def no_after_commit(memory):
    """Commits that leave the index alone, so the next recall has to catch up by itself."""
    from souveraine.laws import inprocess
    from souveraine.store import git as gitstore

    gitstore.register(inprocess.judge, None)
    empty = memory.root / ".git" / "no-hooks"
    empty.mkdir()
    gitstore.run(memory.root, "config", "core.hooksPath", str(empty))


def test_incremental_after_add_edit_delete_and_rename_equals_a_full_rebuild(seeded, no_after_commit, say, note):
    memory = seeded
    say(("2026-11-29T09:00:00", "user", "We should buy a kayak next summer."))
    note("domains/sailing.md", "Knots, tides and [[people/clara]] who sails.")
    note("memories/2026-11-01-tea-0f3c9a1b.md", "I prefer rooibos now.", **memory_note())
    with memory.change("refactor(memory): rename clara") as change:
        change.write("people/clara-martin.md", memory.read_text("people/clara.md"))
        change.delete("people/clara.md")
    with memory.change("fix(memory): drop the old domain") as change:
        change.delete("domains/sailing.md")
    update = index.refresh(memory)
    assert update.mode == "incremental"
    assert (update.files, update.removed) == (3, 1)   # sailing.md came and went unseen
    assert found(memory, "kayak") == {"journal/2026/11/2026-11-29.md"}
    assert found(memory, "rooibos") == {"memories/2026-11-01-tea-0f3c9a1b.md"} and not found(memory, "genmaicha")
    assert found(memory, "Lyon") == {"people/clara-martin.md"}
    assert not found(memory, "tides")
    same_as_rebuild(memory)
    assert_clean(memory.root)


def test_edits_outside_git_are_found_at_once_and_deleted_notes_never_again(seeded):
    memory = seeded
    (memory.root / "people/clara.md").write_text("---\naliases: [Clo]\n---\nClara moved to Porto.\n")
    (memory.root / "domains/boats.md").write_text("# Boats\n\nA sloop has one mast.\n")
    (memory.root / "memories/2026-11-01-tea-0f3c9a1b.md").unlink()
    assert found(memory, "Porto") == {"people/clara.md"} and not found(memory, "Lyon")
    assert found(memory, "sloop") == {"domains/boats.md"}
    assert not found(memory, "genmaicha")
    (memory.root / "domains/boats.md").rename(memory.root / "domains/ships.md")
    assert found(memory, "sloop") == {"domains/ships.md"}
    same_as_rebuild(memory)


def test_an_edit_put_back_is_forgotten_too(seeded):
    memory = seeded
    (memory.root / "people/clara.md").write_text("Clara moved to Porto.\n")
    assert found(memory, "Porto")
    git(memory.root, "checkout", "--", "people/clara.md")
    assert not found(memory, "Porto") and found(memory, "Lyon") == {"people/clara.md"}
    same_as_rebuild(memory)


def test_nothing_changed_costs_no_update(seeded):
    assert index.refresh(seeded).mode == "fresh"


@pytest.mark.parametrize("damage", ["missing", "garbage", "truncated", "empty", "foreign"])
def test_a_missing_or_corrupt_index_is_rebuilt_silently(seeded, invoke, damage):
    file = index.location(seeded)
    data = file.read_bytes()
    if damage == "missing":
        file.unlink()
    elif damage == "garbage":
        file.write_bytes(b"this is not a database\n" * 100)
    elif damage == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        file.write_bytes(b"")
    else:
        conn = sqlite3.connect(file)
        conn.execute("DROP TABLE fts")
        conn.commit()
        conn.close()
    result = invoke("recall", "Piranesi", "--json")
    assert result.exit_code == 0, result.output
    assert {hit["path"] for hit in json.loads(result.stdout)} == {"journal/2026/11/2026-11-28.md"}
    assert index.status(seeded)["documents"] == 4    # 2 turns, a memory, clara (the empty people index is none)


def test_a_rewritten_history_is_rebuilt(seeded):
    conn = sqlite3.connect(index.location(seeded))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'commit'", (json.dumps("0" * 40),))
    conn.commit()
    conn.close()
    seeded.path("domains/x.md").write_text("zeppelin\n")
    assert index.refresh(seeded).mode == "rebuild"
    assert found(seeded, "zeppelin")


def test_after_commit_refreshes_an_index_and_never_raises(memory, no_after_commit, say, tmp_path):
    index.after_commit(memory.root)
    assert not index.location(memory).exists()      # building one is recall's job, not a commit's
    index.refresh(memory)
    say(("2026-11-30T08:00:00", "user", "The harbour was foggy."))
    assert not index.status(memory)["fresh"]
    index.after_commit(memory.root)
    assert index.status(memory)["fresh"]
    index.after_commit(tmp_path / "not-a-memory")
    index.location(memory).write_bytes(b"garbage")
    index.after_commit(memory.root)


def test_after_a_commit_only_committed_files_are_read_and_a_later_edit_is_still_caught(seeded, no_after_commit, say,
                                                                                      monkeypatch):
    say(("2026-11-29T08:00:00", "user", "The quay was busy."))           # a commit the index missed
    say(("2026-11-30T08:00:00", "user", "The harbour was foggy."))
    (seeded.root / "people" / "clara.md").write_text("Clara moved to Porto.\n")      # edited, not committed
    with monkeypatch.context() as patched:
        patched.setattr(index, "_state", lambda root: pytest.fail("after one commit, the work tree was scanned"))
        index.after_commit(seeded.root)
    assert index.status(seeded)["commit"] == git(seeded.root, "rev-parse", "HEAD").strip()
    assert found(seeded, "foggy harbour") == {"journal/2026/11/2026-11-30.md"}
    assert found(seeded, "busy quay") == {"journal/2026/11/2026-11-29.md"}
    assert "people/clara.md" in found(seeded, "Porto")                                  # recall's own check
    same_as_rebuild(seeded)


def test_updates_at_once_queue_and_agree(seeded, say):
    say(*[(f"2026-11-30T08:00:{n:02d}", "user", f"parallel note {n}") for n in range(20)])
    errors = []

    def update():
        try:
            index.refresh(seeded)
        except Exception as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=update) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    same_as_rebuild(seeded)


def test_a_sqlite_without_fts5_is_one_clear_refusal(monkeypatch):
    class NoFts5:
        def execute(self, sql):
            raise sqlite3.OperationalError("no such module: fts5")

    monkeypatch.setattr(index.sqlite3, "connect", lambda *a, **k: NoFts5())
    with pytest.raises(Refused, match="has no FTS5") as caught:
        index.require_fts5.__wrapped__()
    assert caught.value.code == "fts5_missing"


def test_the_tools_own_commits_keep_an_index_fresh(memory, say):
    index.refresh(memory)
    say(("2026-11-30T08:00:00", "user", "The lighthouse keeper waved."))
    assert index.status(memory)["fresh"]


def test_a_quick_look_sees_new_files_anywhere_and_a_scan_sees_edits_in_place(seeded, monkeypatch):
    memory = seeded
    (memory.root / "memories/2026-11-30-kayak-0f3c9a1c.md").write_text("A kayak for the lake.\n")
    (memory.root / "journal/2027/01").mkdir(parents=True)
    (memory.root / "journal/2027/01/notes.md").write_text("Harbour notes.\n")
    (memory.root / ".gitignore").write_text((memory.root / ".gitignore").read_text() + "memories/scratch-*.md\n")
    (memory.root / "memories/scratch-1.md").write_text("A kayak scratch note.\n")
    assert found(memory, "kayak") == {"memories/2026-11-30-kayak-0f3c9a1c.md"}      # ignored files stay out
    assert found(memory, "harbour") == {"journal/2027/01/notes.md"}
    tea = memory.root / "memories/2026-11-01-tea-0f3c9a1b.md"
    tea.write_text(tea.read_text().replace("genmaicha", "sencha"))      # in place, uncommitted, in a big folder
    assert index.refresh(memory).mode == "fresh"                        # not looked at until the scan
    assert index.refresh(memory, scan=True).files == 1
    assert found(memory, "sencha") == {"memories/2026-11-01-tea-0f3c9a1b.md"}
    tea.write_text(tea.read_text().replace("sencha", "matcha"))
    monkeypatch.setattr(index, "SCAN_SECONDS", 0.0)                    # the scan is due
    assert found(memory, "matcha") == {"memories/2026-11-01-tea-0f3c9a1b.md"}
    same_as_rebuild(memory)


@pytest.fixture
def kept(monkeypatch):
    """Connections kept open between searches, as in the MCP server; closed for real afterwards."""
    monkeypatch.setattr(index, "_kept", None)
    index.keep_open()
    yield
    for conn in index._kept:
        sqlite3.Connection.close(conn)


def test_a_kept_connection_serves_the_next_search_and_sees_every_change(seeded, kept, say, note):
    conn, _ = index.fresh(seeded)
    conn.close()
    again, _ = index.fresh(seeded)
    assert again is conn                                   # the same connection, its pages warm
    again.close()
    assert found(seeded, "Piranesi") == {"journal/2026/11/2026-11-28.md"}
    say(("2026-11-29T09:00:00", "user", "The zeppelin museum opens in May."))
    assert found(seeded, "zeppelin") == {"journal/2026/11/2026-11-29.md"}
    (seeded.root / "people" / "clara.md").write_text("Clara, my sister, moved to Marseille.\n")   # by hand
    assert found(seeded, "Marseille") == {"people/clara.md"} and found(seeded, "Lyon") == set()
    assert len(index._kept) == 1


def test_a_kept_connection_to_an_index_since_replaced_is_closed(seeded, kept, invoke):
    conn, _ = index.fresh(seeded)
    conn.close()
    file = index.location(seeded)
    file.write_bytes(b"this is not a database\n" * 100)    # replaced: rebuilt as a new file
    assert found(seeded, "Piranesi") == {"journal/2026/11/2026-11-28.md"}
    newer, _ = index.fresh(seeded)
    assert newer is not conn and newer.home[1] == file.stat().st_ino
    newer.close()
    with pytest.raises(sqlite3.ProgrammingError):          # the old one was closed, not leaked
        conn.execute("SELECT 1")


def test_searches_at_once_each_get_their_own_kept_connection(seeded, kept):
    lent = [index.fresh(seeded)[0] for _ in range(index.KEPT + 2)]
    assert len({id(c) for c in lent}) == len(lent)
    results, errors = [], []

    def search():
        try:
            results.append(found(seeded, "Piranesi"))
        except Exception as exc:  # noqa: BLE001 - shown below
            errors.append(exc)

    threads = [threading.Thread(target=search) for _ in range(6)]
    for conn in lent:
        conn.close()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and results == [{"journal/2026/11/2026-11-28.md"}] * 6
    assert len(index._kept) <= index.KEPT


def test_an_index_of_headings_alone_is_no_document_but_one_with_code_is():
    from souveraine.recall import sources

    meta = {"type": "index"}
    assert sources._own_lines("people/_index.md", meta, "# People\n\n## Friends\n") is None
    assert sources._own_lines("people/_index.md", meta, "# People\n\n    # not a heading: code\n") is not None
    assert sources._own_lines("people/_index.md", meta, "# People\n\n####### seven is a paragraph\n") is not None


@pytest.mark.parametrize("relpath", [
    "journal/2026/12/2026-12-01.md", "memories/2024/x.md", "people/Inês.md", "people/.hidden.md", "people/.git/x.md",
    "system/x.md", "journal", "journal/", "journal//2026/x.md", "./journal/x.md", "journal/./x.md", "/journal/x.md",
    "journal/x.txt", "journal/x.md/", "archive/a/b/c.md", "domains/..md", "domains/../x.md", "reference/x.MD",
])
def test_which_paths_recall_reads_is_decided_as_a_path_reads_them(relpath):
    """``sources.indexed`` splits a clean path itself; its answer is the one PurePosixPath's parts give."""
    from pathlib import PurePosixPath

    parts = PurePosixPath(relpath).parts
    expected = (len(parts) > 1 and parts[0] in sources.KINDS and relpath.endswith(".md")
                and not any(p.startswith(".") for p in parts))
    assert sources.indexed(relpath) == expected


def test_a_walk_lists_exactly_the_files_recall_reads(tmp_path):
    """The walk asks ``indexed`` once a folder; what it finds is what asking of each file gives."""
    files = ["journal/2026/12/2026-12-01.md", "journal/2026/notes.txt", "journal/.trash/x.md", "journal/2026/.x.md",
             "people/Inês.md", "people/sub/deep/a.md", "people/sub/.hidden/b.md", "memories/2024/m.md", "memories/m.MD",
             "archive/a.md.bak", "domains/d.md"]
    for relpath in files:
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text("x\n", encoding="utf-8")
    folders: dict[str, int] = {}
    found = set().union(*(index._walk(tmp_path, top, folders) for top in ("journal", "people", "memories", "archive",
                                                                           "domains")))
    assert found == {p for p in files if sources.indexed(p)}
    assert ".trash" not in " ".join(folders) and "people/sub/deep" in folders
