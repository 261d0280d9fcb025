"""Fixtures for recall: turns written as persist writes them, notes as their owners do."""

from datetime import datetime

import pytest

from bench.conversations import Line, day_texts
from souveraine.store import notes


@pytest.fixture
def now(monkeypatch):
    """The one clock, fixed: Monday 30 November 2026, noon."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T12:00:00+00:00")
    return datetime.fromisoformat("2026-11-30T12:00:00+00:00")


# Three apprentices named in three sessions, the word "apprentice" in none of them, among
# other talk of the bakery that shares the question's words.
APPRENTICES = [
    ("2026-03-02T07:00:00", "user", "Lucas did his first week on the croissant dough, he has good hands", "a"),
    ("2026-03-02T07:01:00", "assistant", "A good start. Is he staying through the summer?", "a"),
    ("2026-05-11T07:00:00", "user", "Inès joined us from the CFA, I'm teaching her to shape baguettes", "b"),
    ("2026-05-11T07:01:00", "assistant", "How is she getting on with the early hours?", "b"),
    ("2026-07-20T07:00:00", "user", "Bilal starts his training contract with me on Monday", "c"),
    ("2026-07-20T07:01:00", "assistant", "Congratulations to both of you.", "c"),
    ("2026-08-01T07:00:00", "user", "Karim has trained his dog to wait by the door", "d"),
    ("2026-08-02T07:00:00", "user", "Which oven has the best crust? The deck oven, every time", "e"),
    ("2026-08-03T07:00:00", "user", "the bank has finally approved the loan for the new van", "f"),
]


def journal_turns(memory, turns):
    """Append turns ``(iso time, role, text[, session])`` to the journal in one commit; returns (path, block) each."""
    lines = [Line(datetime.fromisoformat(t[0]), t[1], t[2], t[3] if len(t) > 3 else "s1") for t in turns]
    paths = {f"journal/{l.at:%Y/%m/%Y-%m-%d}.md" for l in lines}
    existing = {rel: memory.read_text(rel) for rel in paths if memory.exists(rel)}
    texts, placed = day_texts(lines, existing)
    with memory.change("chore(journal): persist turns") as change:
        for rel, text in texts.items():
            change.write(rel, text)
    return [placed[i] for i in range(len(lines))]


@pytest.fixture
def say(memory, now):
    """``journal_turns`` for this test's memory."""
    return lambda *turns: journal_turns(memory, turns)


@pytest.fixture
def note(memory, now):
    """Write a note with properties, committed: ``note("people/clara.md", "text", tier=...)``."""

    def write(relpath, body, commit=True, **meta):
        with memory.change(f"feat(memory): add {relpath}", commit=commit) as change:
            change.write_note(relpath, notes.new(meta, body))
        return relpath

    return write


def memory_note(tier="episodic", created="2026-11-01T10:00:00+00:00", visibility="public", **extra):
    """The properties of a memories/ file, as docs/FORMATS.md gives them."""
    return {"id": "0f3c9a1b-0000-4000-8000-000000000000", "tier": tier, "created": created, "identity_id": "",
            "visibility": visibility, "description": "", "tags": ["memory", tier], **extra}


def age_scan(root, seconds_left: float) -> float:
    """Make the index's last scan as old as one ``seconds_left`` from due, as minutes of time would."""
    import json
    import sqlite3
    import time

    from souveraine.recall import index

    aged = time.time() - index.SCAN_SECONDS + seconds_left
    conn = sqlite3.connect(root / ".souveraine" / index.FILE)
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'scanned'", (json.dumps(aged),))
    conn.close()
    return aged


def edit_out_of_sight(memory) -> str:
    """An old journal day edited in place, uncommitted, where only a scan of the work tree sees it
    (not the quick look): "zeppelin" is in the file, not yet in the index. Returns its path."""
    from souveraine.recall import index
    from souveraine.recall.search import recall

    journal_turns(memory, [(f"2026-01-0{day}T09:00:00", "user", f"a quiet morning of lamination, day {day}", "q")
                           for day in range(1, 6)])
    for _ in range(2):      # read, then looked at once more: from now on only a scan looks at the old days
        index.refresh(memory, scan=True)
    path = "journal/2026/01/2026-01-01.md"
    day = memory.root / path
    day.write_text(day.read_text().replace("lamination, day 1", "lamination with the zeppelin flour"))
    assert recall(memory, "zeppelin").hits == [], "an in-place edit of an old day waits for the scan"
    return path
