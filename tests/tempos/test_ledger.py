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
