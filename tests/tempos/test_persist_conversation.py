"""Fifty exchanges through persist and surface, as an agent's loop would run them."""

from datetime import datetime, timedelta

from souveraine.store import journal, notes
from souveraine.store.memory import Memory
from souveraine.tempos import inbox, ledger
from souveraine.tempos.persist import persist
from souveraine.tempos.surface import surface
from souveraine.tempos.transcripts import Exchange
from tests.support import assert_clean, git

START = datetime.fromisoformat("2026-11-30T21:00:00+00:00")
APPEND_ONLY = ("system/metacognition/subconscious.md", "inbox/sent.md")


def script() -> dict[int, tuple]:
    """Exchange number → (user, assistant, tool calls); the others are small talk."""
    return {
        3: ("My daughter Mia was born on 2 May.", "What a lovely date. I'll remember that.", ()),
        5: ("Paul is allergic to nuts.", "Noted. I'll remember that.", ("souveraine remember 'Paul is allergic to nuts'",)),
        8: ("Can you commit the config change?", "I'll commit the config change once the build is green.", ()),
        12: ("Is the config in?", "Yes: I committed the config change as 1a2b3c.", ()),
        15: ("The heating is broken again.", "I'll follow up with the landlord about the heating.", ()),
        16: ("How much will the new plan cost?", "I'll get back to you on the pricing of the plan, 40 or 50 euros.", ()),
        20: ("Any news?", "As promised, I followed up with the landlord: the heating will be fixed on Tuesday.", ()),
        30: ("When is the plumber coming?", "Plumbers are hard to find these days, and prices went up.", ()),
        33: ("Deploy it please.", "I'll assume you meant the staging server; deploying there.", ("Bash make deploy-staging",)),
    }


def snapshot(root) -> dict[str, bytes]:
    paths = journal.days(root) + list(APPEND_ONLY)
    return {p: (root / p).read_bytes() for p in paths}


def test_fifty_exchanges(memory, monkeypatch):
    # The laws' hooks have their own suite; here the append-only law is checked after every
    # step by comparing bytes, and the hooks are off so that 100 commits stay quick.
    hooks = memory.root / ".git" / "no-hooks"
    hooks.mkdir()
    git(memory.root, "config", "core.hooksPath", str(hooks))
    config = memory.root / "souveraine.toml"
    config.write_text(config.read_text().replace('tempos = "detached"', 'tempos = "inline"'))
    git(memory.root, "commit", "-qam", "chore(config): the tempos in persist's own process")
    events = script()
    said, surfaced, results = [], [], {}
    before = snapshot(memory.root)
    for n in range(1, 51):
        now = START + timedelta(minutes=6 * n)
        monkeypatch.setenv("SOUVERAINE_NOW", now.isoformat())
        if n == 22:
            for text in ("The smoke alarm is beeping", "The front door is unlocked"):
                inbox.add(Memory(memory.root), text, "critical")
        user, answer, calls = events.get(n, (f"Tell me about topic {n}.", f"Topic {n} is a fine thing to discuss.", ()))
        said += [user, answer]
        results[n] = persist(Memory(memory.root), Exchange(answer, user, "conv-1", tool_calls=calls))
        shown = surface(Memory(memory.root), "low" if n in (40, 41) else "high").lines
        surfaced.append(shown)
        assert len(shown) <= 1 or all(line.startswith("[surfacing: critical:") for line in shown)
        after = snapshot(memory.root)
        for path, old in before.items():
            assert after[path].startswith(old), f"{path} was rewritten at exchange {n}"
        before = after
        assert_clean(memory.root)

    # The journal holds every word, in order, across the midnight.
    turns = [t for t in journal.turns(memory.root) if t.role not in ("reflection", "tool")]
    assert [t.text for t in turns] == said
    assert [d[-13:-3] for d in journal.days(memory.root)] == ["2026-11-30", "2026-12-01"]

    # The unkept save promise was kept; the one kept by a tool call was not repeated.
    saved = [notes.read(p) for p in sorted((memory.root / "memories").rglob("*.md"))]
    assert [n.body for n in saved] == ["The user's daughter Mia was born on 2 May (2026-05-02).\n"]
    assert saved[0]["source"] == results[3].turns[0]["link"]

    # Other promises surfaced once, then closed when kept; the unkept one stays open.
    flat = [line for lines in surfaced for line in lines]
    for n in (8, 15, 16):
        sentence = results[n].promises[0]["sentence"]
        assert sum(sentence in line for line in flat) == 1, sentence
    entries = {e.text: e for e in ledger.entries(memory, "commitments")}
    commit, landlord, pricing = (entries[results[n].promises[0]["sentence"]] for n in (8, 15, 16))
    assert commit.status == "closed" and results[12].turns[1]["block_id"] in commit.ended
    assert landlord.status == "closed" and results[20].turns[1]["block_id"] in landlord.ended
    assert pricing.status == "open"

    # Critical thoughts came all at once, at the first surfacing after they were queued.
    assert surfaced[21] == ["[surfacing: critical: The smoke alarm is beeping]",
                            "[surfacing: critical: The front door is unlocked]"]
    # On a low-bandwidth viewport, nothing below high urgency surfaced.
    assert all(": low:" not in line and ": medium:" not in line for line in surfaced[39] + surfaced[40])

    # Reflection ran each time 25 messages had come (its witness entry resets the count);
    # the archivist at 100.
    assert [n for n in range(1, 51) if results[n].reflection_due] == [13, 26, 39]
    assert all("reflection" in results[n].ran for n in (13, 26, 39))
    assert results[14].since_reflection == 2
    assert [n for n in range(1, 51) if results[n].archive_due] == [50]
    voice = (memory.root / "system/metacognition/subconscious.md").read_text()
    assert voice.count("Reflection is due") == 3 and voice.count("The archivist is due") == 1
    assert {n: r.unanswered for n, r in results.items() if r.unanswered} == {30: ["When is the plumber coming?"]}
    assert "[URGENCY: medium] — The question \"When is the plumber coming?\" may have gone unanswered." in voice
    assert [a["text"] for a in results[33].assumptions] == ["I'll assume you meant the staging server; deploying there."]

    # One commit per persist, one per surfacing that moved something.
    subjects = git(memory.root, "log", "--format=%s").splitlines()
    assert sum(s.startswith(("chore(journal): persist 2 turns", "chore(journal): persist 3 turns")) for s in subjects) == 50
