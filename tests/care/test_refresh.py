"""refresh: doctor's audit and a low thought — is this still me? — with what changed, each linked."""

import json
from pathlib import Path

from souveraine.care import refresh, rules
from souveraine.care.doctor import doctor
from souveraine.identity import elevation, memories
from souveraine.tempos import inbox, ledger
from tests.support import assert_clean, git


def waiting(memory):
    return inbox.read(memory, inbox.PENDING).items


def test_the_first_refresh_asks_and_says_nothing_changed(memory, invoke):
    done = json.loads(invoke("refresh", "--json").stdout)
    [item] = waiting(memory)
    assert item.urgency == "low" and item.text == done["thought"]
    assert item.text.startswith("Identity refresh: re-read [[system/persona/identity|who I am]] and "
                                "[[system/persona/principles|my principles]] — is this still me? is this still how I work?")
    assert item.text.endswith("nothing has changed: no elevation, drift, correction or new person.")
    assert (done["errors"], done["changed"]) == (0, {"elevations": [], "drift": [], "corrections": [], "people": []})
    assert git(memory.root, "log", "-1", "--format=%s").strip() == f"chore(inbox): identity refresh since {done['since']}"
    assert_clean(memory.root)


def test_the_next_refresh_lists_what_changed_since_the_last(memory, invoke):
    old = memories.remember(memory, "Ada taught me to check the tests before saying done.", identity="ada")
    elevation.elevate(memory, old["id"], "foundational")
    refresh.refresh(memory)                                   # the first: that elevation is before the next
    kept = memories.remember(memory, "Lea said I should answer in French when she writes in French.", identity="ada")
    elevation.elevate(memory, kept["id"], "foundational")
    with memory.change("feat(ledger): drift noticed") as change:
        entry = ledger.add(change, "drift", "I started answering at length again", "length",
                           "[[system/persona/identity]]")
        change.write("people/lea.md", "---\ntype: person\nname: Lea\ndescription: Lea, Ada's sister.\n---\n# Lea\n")
    rules.remember_to(memory, "Actually, Ada prefers answers without emojis", kind="correction")
    memories.remember(memory, "An ordinary day.")

    done = refresh.refresh(memory)

    assert done["errors"] == 0
    changed = done["changed"]
    assert [e["path"] for e in changed["elevations"]] == [kept["path"]]
    assert [d["id"] for d in changed["drift"]] == [entry.id]
    assert [c["link"] for c in changed["corrections"]] == ["[[system/human/prefs/communication]]"]
    assert [p["link"] for p in changed["people"]] == ["[[people/lea]]"]
    item = waiting(memory)[-1]
    assert item.urgency == "low"
    assert (f"1 elevation ([[{kept['path'][:-3]}]]); 1 drift entry ([[ledger/drift#^{entry.id}]]); "
            "1 correction ([[system/human/prefs/communication]]); 1 new person ([[people/lea]]).") in item.text
    assert [f.to_dict() for f in doctor(memory) if f.path.startswith("inbox/")] == []     # every link resolves


def test_a_correction_that_removed_its_file_is_counted_but_never_linked(memory):
    refresh.refresh(memory)
    with memory.change("feat(memory): a note that turns out wrong") as change:
        change.write("domains/garden.md", "---\ndescription: The garden.\n---\n# Garden\n\n- Roses.\n")
    git(memory.root, "rm", "-q", "domains/garden.md")
    git(memory.root, "commit", "-qm", "fix(memory): the garden note was about someone else's garden")
    done = refresh.refresh(memory)
    assert [c["files"] for c in done["changed"]["corrections"]] == [["domains/garden.md"]]
    assert done["changed"]["corrections"][0]["link"] == ""
    assert done["thought"].endswith("Since " + done["since"] + ": 1 correction.")
    assert [f.to_dict() for f in doctor(memory) if f.path.startswith("inbox/")] == []


def test_doctor_errors_come_as_a_high_thought_in_the_same_commit(memory, invoke):
    hooks = Path(git(memory.root, "rev-parse", "--git-path", "hooks").strip())
    ((hooks if hooks.is_absolute() else memory.root / hooks) / "pre-commit").unlink()
    head = git(memory.root, "rev-parse", "HEAD").strip()
    done = refresh.refresh(memory)
    assert done["errors"] >= 1
    assert [i.urgency for i in waiting(memory)] == ["low", "high"]
    assert "The quarterly doctor found" in waiting(memory)[1].text
    assert git(memory.root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"


def test_the_schedule_runs_it(memory):
    from souveraine.clock import schedule

    result = schedule.run_job(memory, "refresh")
    assert result["status"] == "done" and result["result"]["thought"].startswith("Identity refresh")
    assert schedule.run_job(memory, "learnings")["status"] == "done"
