import json

import pytest

from souveraine.tempos import ledger
from tests.support import assert_clean

SOURCE = "[[journal/2026/11/2026-11-30#^t143205a1b2c|2026-11-30 14:32]]"


def fill(memory):
    with memory.change("chore(ledger): test entries") as change:
        made = [
            ledger.add(change, "commitments", "I'll commit that.", "commit", SOURCE),
            ledger.add(change, "commitments", "I'll follow up with Ana · about \"the lease\".", "follow_up", SOURCE),
            ledger.add(change, "assumption", "I assume you meant staging.", "assumption", SOURCE),
            ledger.add(change, "patterns", "Asks for summaries on Mondays.", "habit", SOURCE),
            ledger.add(change, "drift", "Answered curtly against the declared warmth.", "register", SOURCE),
        ]
    return made


def test_entries_render_and_parse_back(memory):
    made = fill(memory)
    assert [e.id[0] for e in made] == ["c", "c", "a", "p", "d"]
    assert ledger.entries(memory) == made
    text = (memory.root / "ledger/commitments.md").read_text()
    assert f'- [ ] open · "I\'ll commit that." · commit · {SOURCE} ^{made[0].id}\n' in text
    assert made[1].text == "I'll follow up with Ana - about \"the lease\"."
    assert_clean(memory.root)


def test_adding_the_same_entry_twice_adds_it_once(memory):
    fill(memory)
    with memory.change("chore(ledger): again") as change:
        assert ledger.add(change, "commitments", "I'll commit that.", "commit", SOURCE) is None
    assert len(ledger.entries(memory, "commitments")) == 2


def test_ending_an_entry_rewrites_only_its_line(memory):
    made = fill(memory)
    before = (memory.root / "ledger/commitments.md").read_text()
    by = "[[journal/2026/11/2026-11-30#^t150000a9f9f|2026-11-30 15:00]]"
    with memory.change("chore(ledger): close") as change:
        [ended] = ledger.end(change, "commitments", {made[0].id}, by)
    after = (memory.root / "ledger/commitments.md").read_text()
    assert after == before.replace(made[0].render(), ended.render())
    assert ended.render() == f'- [x] closed · "I\'ll commit that." · commit · {SOURCE} · closed by {by} ^{made[0].id}'
    assert [e.id for e in ledger.entries(memory, "commitments", open_only=True)] == [made[1].id]


def test_ticking_the_box_by_hand_closes_it(memory):
    fill(memory)
    path = memory.root / "ledger/commitments.md"
    path.write_text(path.read_text().replace("- [ ] open · \"I'll commit that.\"", "- [x] open · \"I'll commit that.\""))
    assert ledger.entries(memory, "commitments")[0].status == "closed"


def test_ledger_command_lists_filters_and_speaks_json(invoke, memory):
    made = fill(memory)
    lines = invoke("ledger").output.splitlines()
    assert len(lines) == 5 and lines[0].startswith(f"{made[0].id}  open      commit")
    data = json.loads(invoke("ledger", "commitments", "--open", "--json").output)
    assert [d["id"] for d in data] == [made[0].id, made[1].id]
    assert data[0]["link"] == f"[[ledger/commitments#^{made[0].id}]]" and data[0]["source"] == SOURCE
    assert [d["kind"] for d in json.loads(invoke("ledger", "assumption", "--json").output)] == ["assumptions"]


def test_an_empty_ledger_is_an_empty_list(invoke, memory):
    assert json.loads(invoke("ledger", "--json").output) == []
    assert invoke("ledger").output == ""


def test_an_unknown_ledger_is_a_usage_error(invoke, memory):
    assert invoke("ledger", "promises").exit_code == 2
    with pytest.raises(Exception, match="no ledger 'promises'"):
        ledger.entries(memory, "promises")


def test_close_and_drop_by_hand_one_commit_each(invoke, memory):
    made = fill(memory)
    head = lambda: __import__("subprocess").run(  # noqa: E731
        ["git", "-C", str(memory.root), "log", "--format=%s"], capture_output=True, text=True).stdout.splitlines()
    before = len(head())
    done = invoke("ledger", "close", made[0].id[:5], "--note", "sent (by mail)", "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert data["status"] == "closed" and data["note"] == "sent [by mail]" and data["ended"].startswith("hand on ")
    assert invoke("ledger", "drop", made[1].id).exit_code == 0
    log = head()
    assert len(log) == before + 2 and log[0] == f"chore(ledger): drop {made[1].id} by hand"
    assert log[1] == f"chore(ledger): close {made[0].id} by hand"
    entries = {e.id: e for e in ledger.entries(memory, "commitments")}
    assert entries[made[0].id].status == "closed" and entries[made[0].id].note == "sent [by mail]"
    assert entries[made[1].id].status == "dropped" and entries[made[1].id].how == "dropped by"
    assert_clean(memory.root)


def test_closing_twice_or_an_unknown_id_changes_nothing(invoke, memory):
    made = fill(memory)
    assert invoke("ledger", "close", made[0].id).exit_code == 0
    text = (memory.root / "ledger/commitments.md").read_text()
    again = invoke("ledger", "close", made[0].id)
    assert again.exit_code != 0 and "already closed" in again.output
    unknown = invoke("ledger", "drop", "c000000")
    assert unknown.exit_code == 2 and "no ledger entry 'c000000'" in unknown.output
    assert invoke("ledger", "drop", "zz").exit_code == 2
    assert (memory.root / "ledger/commitments.md").read_text() == text
    assert_clean(memory.root)


def test_a_due_commitment_round_trips(memory):
    with memory.change("chore(ledger): dated") as change:
        entry = ledger.add(change, "commitments", "I'll remind you on Thursday.", "follow_up", SOURCE, due="2026-12-03")
    text = (memory.root / "ledger/commitments.md").read_text()
    assert f"{SOURCE} · due 2026-12-03 ^{entry.id}" in text
    assert ledger.entries(memory)[0].due == "2026-12-03"
