import json
from datetime import datetime

import pytest

from souveraine.store.memory import Memory
from souveraine.tempos import inbox
from souveraine.tempos.surface import choose, surface
from tests.support import assert_clean, git


def queue(memory, *items):
    """Queue items in one commit: (urgency, 'HH:MM', text)."""
    made = [inbox.new_item(text, urgency, datetime(2026, 11, 30, int(t[:2]), int(t[3:]))) for urgency, t, text in items]
    with memory.change("chore(inbox): queue test thoughts") as change:
        inbox.queue(change, made)
    return made


@pytest.fixture(autouse=True)
def evening(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T18:00:00+00:00")


def test_one_thought_per_turn_most_urgent_then_oldest(invoke, memory):
    queue(memory, ("low", "09:00", "Water the plants"), ("high", "11:00", "The lease ends Friday"),
          ("high", "10:00", "Call the bank"), ("medium", "08:00", "Reply to Ana"))
    shown = [invoke("surface").output for _ in range(4)]
    assert [out.splitlines()[0] for out in shown] == [
        "[surfacing: high: Call the bank]", "[surfacing: high: The lease ends Friday]",
        "[surfacing: medium: Reply to Ana]", "[surfacing: low: Water the plants]"]
    assert shown[0] == ("[surfacing: high: Call the bank]\n[inbox: 3 waiting]\n  - high: The lease ends Friday\n"
                        "  - medium: Reply to Ana\n  - low: Water the plants\n")      # high: the inbox's contents
    assert shown[3] == "[surfacing: low: Water the plants]\n"
    assert invoke("surface").output == ""
    assert_clean(memory.root)


def test_critical_thoughts_surface_all_at_once(invoke, memory):
    queue(memory, ("high", "09:00", "Pay the rent"), ("critical", "10:00", "The server is down"),
          ("critical", "09:30", "The deploy key leaked"))
    assert invoke("surface", "--bandwidth", "low").output == ("[surfacing: critical: The deploy key leaked]\n"
                                                          "[surfacing: critical: The server is down]\n")
    assert invoke("surface", "--bandwidth", "medium").output == "[surfacing: high: Pay the rent]\n"


@pytest.mark.parametrize("bandwidth, expected", [
    ("high", ["low", "medium", "high", "critical"]), ("medium", ["medium", "high", "critical"]),
    ("low", ["high", "critical"]), ("minimal", []),
])
def test_bandwidth_filters_what_may_surface(bandwidth, expected):
    items = [inbox.new_item(f"a {u} one", u, datetime(2026, 11, 30, 8 + n)) for n, u in enumerate(inbox.URGENCIES)]
    may = [item.urgency for item in items if choose([item], bandwidth)]
    assert may == expected


def test_low_bandwidth_keeps_the_rest_waiting_and_minimal_shows_only_presence(invoke, memory):
    queue(memory, ("low", "08:00", "a low one"), ("medium", "09:00", "a medium one"), ("critical", "10:00", "fire"))
    head = git(memory.root, "rev-parse", "HEAD")
    assert invoke("surface", "--bandwidth", "minimal").output == "[surfacing: presence: 3 waiting, 1 critical]\n"
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert invoke("surface", "--bandwidth", "low").output == "[surfacing: critical: fire]\n"
    assert invoke("surface", "--bandwidth", "low").output == ""
    assert invoke("surface", "--bandwidth", "medium").output == ("[surfacing: medium: a medium one]\n"
                                                                 "[inbox: 1 more waiting: souveraine inbox]\n")


def test_a_thought_moves_pending_to_intrusive_to_sent(invoke, memory):
    [item] = queue(memory, ("high", "09:00", "Call the bank"))
    sent_before = (memory.root / "inbox/sent.md").read_bytes()
    data = json.loads(invoke("surface", "--bandwidth", "medium", "--json").output)
    assert data["surfaced"] == [item.to_dict()] and data["lines"] == ["[surfacing: high: Call the bank]"]
    assert item.id not in (memory.root / "inbox/pending.md").read_text()
    assert f"- [2026-11-30 09:00] [URGENCY: high] Call the bank ^{item.id}" in (memory.root / "inbox/intrusive.md").read_text()
    sent = (memory.root / "inbox/sent.md").read_bytes()
    assert sent.startswith(sent_before)
    assert sent[len(sent_before):].decode() == f"- [2026-11-30 18:00] [viewport: medium] [URGENCY: high] Call the bank ^{item.id}\n"
    assert git(memory.root, "log", "-1", "--format=%s") == "chore(inbox): surface 1 thought (medium)\n"

    data = json.loads(invoke("surface", "--json").output)
    assert (data["surfaced"], [d["id"] for d in data["delivered"]]) == ([], [item.id])
    assert item.id not in (memory.root / "inbox/intrusive.md").read_text()
    assert (memory.root / "inbox/sent.md").read_bytes() == sent
    assert json.loads(invoke("inbox", "list", "--queue", "sent", "--json").output)[0]["viewport"] == "medium"
    assert_clean(memory.root)


def test_peek_changes_nothing(invoke, memory):
    queue(memory, ("high", "09:00", "Call the bank"))
    head = git(memory.root, "rev-parse", "HEAD")
    pending = (memory.root / "inbox/pending.md").read_text()
    assert invoke("surface", "--peek").output == "[surfacing: high: Call the bank]\n"
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert (memory.root / "inbox/pending.md").read_text() == pending


def test_nothing_waiting_prints_nothing_and_json_an_empty_list(invoke, memory):
    head = git(memory.root, "rev-parse", "HEAD")
    assert invoke("surface").output == ""
    assert json.loads(invoke("surface", "--json").output)["surfaced"] == []
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_a_line_written_by_hand_is_a_thought(invoke, memory):
    path = memory.root / "inbox/pending.md"
    path.write_text(path.read_text() + "- call the plumber\n")
    git(memory.root, "commit", "-qam", "docs(inbox): a note by hand")
    assert invoke("surface").output == "[surfacing: medium: call the plumber]\n"
    assert "call the plumber" not in path.read_text()


def test_inbox_add_and_list(invoke, memory):
    done = invoke("inbox", "add", "Renew the passport", "--urgency", "high", "--json")
    assert done.exit_code == 0
    added = json.loads(done.output)
    assert (added["urgency"], added["queued"]) == ("high", True)
    assert git(memory.root, "log", "-1", "--format=%s") == "chore(inbox): queue a high thought\n"
    invoke("inbox", "add", "Buy bread")
    listed = invoke("inbox").output.splitlines()
    assert [line.split("  ")[-1] for line in listed] == ["Renew the passport", "Buy bread"]
    assert json.loads(invoke("inbox", "list", "--queue", "intrusive", "--json").output) == []
    assert_clean(memory.root)


def test_inbox_refuses_bad_input(invoke, memory):
    head = git(memory.root, "rev-parse", "HEAD")
    assert invoke("inbox", "add", "x", "--urgency", "urgent").exit_code == 2
    done = invoke("inbox", "add", "   ")
    assert (done.exit_code, done.stderr) == (2, "souveraine: the inbox item's text is empty; give the thought to queue\n")
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert_clean(memory.root)


def test_with_the_inbox_off_nothing_is_queued_or_surfaced(invoke, memory):
    queue(memory, ("high", "09:00", "Call the bank"))
    text = (memory.root / "souveraine.toml").read_text().replace("inbox_enabled = true", "inbox_enabled = false")
    (memory.root / "souveraine.toml").write_text(text)
    git(memory.root, "commit", "-qam", "chore(config): no inbox")
    done = invoke("inbox", "add", "x")
    assert (done.exit_code, done.stderr.split(";")[0]) == (1, "souveraine: the inbox is off (inbox_enabled = false in souveraine.toml)")
    assert surface(Memory(memory.root)).surfaced == []
    assert_clean(memory.root)


def test_a_dated_item_waits_for_its_time(memory, monkeypatch, invoke):
    from datetime import datetime

    from souveraine.tempos import inbox
    from souveraine.tempos.surface import surface

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T09:00:00+00:00")
    with memory.change("chore(inbox): queue a dated thought") as change:
        inbox.queue(change, [inbox.new_item("Due Thursday: send the form", "high", due=datetime(2026, 12, 3, 8, 0))])
    assert "(waits until 2026-12-03 08:00)" in invoke("inbox").output
    assert surface(memory).surfaced == []
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-12-03T07:59:00+00:00")
    assert surface(memory, peek=True).surfaced == []
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-12-03T08:00:00+00:00")
    [item] = surface(memory).surfaced
    assert item.text == "Due Thursday: send the form" and item.due == datetime(2026, 12, 3, 8, 0)
    assert "[due: 2026-12-03 08:00]" in (memory.root / "inbox/sent.md").read_text()
