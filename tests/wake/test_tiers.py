"""Memories by tier: the total from one listing, the elevated few from a cache that follows git."""

from souveraine.identity import memories
from souveraine.store import notes
from souveraine.wake import tiers


def add(memory, text, tier="episodic"):
    relpath, note = memories.new_note(text)
    note["tier"] = tier
    with memory.change(f"feat(memory): remember {text}") as change:
        change.write_note(relpath, note)
    return relpath


def scanned(monkeypatch):
    seen = []
    real = tiers._scan

    def spy(memory, listed):
        seen.append(sorted(listed))
        return real(memory, listed)

    monkeypatch.setattr(tiers, "_scan", spy)
    return seen


def test_totals_and_elevated_follow_each_commit_reading_only_what_changed(memory, monkeypatch):
    first = add(memory, "An ordinary day.")
    lifted = add(memory, "A lesson that shaped me.", "foundational")
    seen = scanned(monkeypatch)
    found = tiers.elevated(memory)
    assert list(found) == [lifted.split("/")[1]] and found[lifted.split("/")[1]]["tier"] == "foundational"
    assert len(seen[0]) == 2                        # no cache yet: every file once
    later = add(memory, "Another day.")
    with memory.change("feat(memory): forget a day") as change:
        change.delete(first)
    tiers.elevated(memory)
    assert seen[1] == [later.split("/")[1]]        # the cache moved with git: only the new file read
    assert tiers.elevated(memory) == found and len(seen) == 2   # nothing moved: nothing read
    assert tiers.totals(tiers.names(memory), found) == {"all": 2, "episodic": 1, "foundational": 1, "constitutive": 0}


def test_a_broken_cache_is_rebuilt(memory):
    lifted = add(memory, "A lesson that shaped me.", "foundational")
    memory.cache.mkdir(exist_ok=True)
    (memory.cache / tiers.CACHE).write_text("{not json")
    assert list(tiers.elevated(memory)) == [lifted.split("/")[1]]


def test_flat_properties_without_a_yaml_parser():
    text = ("---\nid: 1f\ntier: 'constitutive'\nwalls:\n  - Keep my word\n  - 'It''s mine'\nsubagents: []\n"
            "description: \"A \u00e9t\u00e9 day\"  \nnote: value # a comment\n---\nBody\n")
    assert notes.properties(text) == {"id": "1f", "tier": "constitutive", "walls": ["Keep my word", "It's mine"],
                                      "subagents": [], "description": "A \u00e9t\u00e9 day", "note": "value"}
    assert notes.properties("No frontmatter\n") == {}
    for needs_yaml in ("---\nmap:\n  key: value\n---\n", "---\ntext: |\n  lines\n---\n", "---\nunclosed: x\n",
                       "---\nq: \"esc\\\"aped\"\n---\n", "---\nflow: [a, b]\n---\n"):
        assert notes.properties(needs_yaml) is None, needs_yaml
