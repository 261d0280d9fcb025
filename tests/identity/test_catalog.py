"""What wake knows of memories/ without listing it: count, elevated few, newest names —
a cache that follows the folder's mtime and git's tree, reading only what changed."""

import os

from souveraine.identity import memories
from souveraine.store import notes
from souveraine.identity import catalog


def add(memory, text, tier="episodic", day="2026-03-01", flat=False):
    """A memory where this version writes it, or (``flat``) in memories/ itself, as older ones did."""
    from datetime import datetime

    relpath, note = memories.new_note(text, created=datetime.fromisoformat(f"{day}T10:00:00+00:00"))
    relpath = "memories/" + relpath.rsplit("/", 1)[-1] if flat else relpath
    note["tier"] = tier
    with memory.change(f"feat(memory): remember {text}") as change:
        change.write_note(relpath, note)
    return relpath.removeprefix("memories/")


def read(monkeypatch):
    """Record the names whose first lines are read."""
    seen = []
    real = catalog._lifted

    def spy(memory, names):
        names = list(names)
        seen.append(sorted(names))
        return real(memory, names)

    monkeypatch.setattr(catalog, "_lifted", spy)
    return seen


def test_the_catalog_follows_each_commit_reading_only_what_changed(memory, monkeypatch):
    first = add(memory, "An ordinary day.", day="2026-03-01")
    lifted = add(memory, "A lesson that shaped me.", "foundational", day="2026-03-02")
    seen = read(monkeypatch)
    shelf = catalog.catalog(memory)
    assert shelf.count == 2 and shelf.newest == [lifted, first]
    assert list(shelf.elevated) == [lifted] and shelf.elevated[lifted]["tier"] == "foundational"
    assert seen == [[lifted]]                      # no cache: git grep found the one candidate
    later = add(memory, "Another day.", day="2026-03-03")
    with memory.change("feat(memory): forget a day") as change:
        change.delete(f"memories/{first}")
    shelf = catalog.catalog(memory)
    assert seen[1] == [later]                      # the cache moved with git: only the new file read
    assert shelf.newest == [later, lifted]
    assert shelf.totals() == {"all": 2, "episodic": 1, "foundational": 1, "constitutive": 0}
    assert catalog.catalog(memory) == shelf and len(seen) == 2   # nothing moved: nothing read


def test_an_uncommitted_file_waits_for_its_commit(memory):
    add(memory, "An ordinary day.")
    catalog.catalog(memory)
    relpath, note = memories.new_note("Written by hand, not committed yet.")
    notes.write(memory.path(relpath), note)
    assert catalog.catalog(memory).count == 1
    with memory.change("feat(memory): commit it") as change:
        change.touched(relpath)
    for folder in ("memories", os.path.dirname(relpath)):
        os.utime(memory.path(folder), ns=(0, 0))   # even with folder mtimes that say nothing moved
    assert catalog.catalog(memory).count == 2


def test_a_catalog_first_built_beside_an_uncommitted_file_counts_it_once_committed(memory):
    # persist writes a memory, something reads the catalog, then the commit lands:
    # the folder's mtime, taken before the commit, must not stand for the committed tree.
    relpath, note = memories.new_note("Lena arrives in Lisbon on Friday.")
    notes.write(memory.path(relpath), note)
    assert catalog.catalog(memory).count == 0
    with memory.change("feat(memory): commit it") as change:
        change.touched(relpath)
    assert catalog.catalog(memory).count == 1
    assert catalog.catalog(memory).count == 1     # and from the cache, once settled


def test_a_broken_cache_is_rebuilt(memory):
    lifted = add(memory, "A lesson that shaped me.", "foundational")
    memory.cache.mkdir(exist_ok=True)
    (memory.cache / catalog.CACHE).write_text("{not json")
    assert list(catalog.catalog(memory).elevated) == [lifted]


def test_flat_properties_without_a_yaml_parser():
    text = ("---\nid: 1f\ntier: 'constitutive'\nwalls:\n  - Keep my word\n  - 'It''s mine'\nsubagents: []\n"
            "description: \"A \u00e9t\u00e9 day\"  \nnote: value # a comment\n---\nBody\n")
    assert notes.properties(text) == {"id": "1f", "tier": "constitutive", "walls": ["Keep my word", "It's mine"],
                                      "subagents": [], "description": "A \u00e9t\u00e9 day", "note": "value"}
    assert notes.properties("No frontmatter\n") == {}
    for needs_yaml in ("---\nmap:\n  key: value\n---\n", "---\ntext: |\n  lines\n---\n", "---\nunclosed: x\n",
                       "---\nq: \"esc\\\"aped\"\n---\n", "---\nflow: [a, b]\n---\n"):
        assert notes.properties(needs_yaml) is None, needs_yaml


def test_memories_in_year_folders_and_memories_not_yet_moved_are_counted_alike(memory):
    flat = add(memory, "An old day.", "foundational", day="2025-12-31", flat=True)
    newer = add(memory, "A new year.", day="2026-01-01")
    shelf = catalog.catalog(memory)
    assert shelf.count == 2 and shelf.newest == [newer, flat] and list(shelf.elevated) == [flat]
    assert newer.startswith("2026/")
    later = add(memory, "Next year.", day="2027-02-01")     # a new year folder moves memories/'s mtime
    assert catalog.catalog(memory).newest == [later, newer, flat]
    again = add(memory, "Same year.", day="2027-02-02")     # a file in a known year folder moves that folder's
    assert catalog.catalog(memory).newest[0] == again and catalog.catalog(memory).count == 4
