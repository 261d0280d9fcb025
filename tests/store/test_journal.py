from datetime import date, datetime

from souveraine.store import journal


def test_turns_round_trip_with_stable_ids():
    day = date(2026, 11, 30)
    at = datetime(2026, 11, 30, 14, 32, 5)
    text = journal.header(day)
    ids = set()
    for role, words in [("user", "What about ## headings\n\nand ^carets?"), ("assistant", "Fine.\n\n- a list")]:
        block = journal.block_id(at, role, words, "s1", ids)
        ids.add(block)
        text += journal.render(at, role, words, "s1", block)
    turns = journal.parse(text, journal.day_path(day))
    assert [(t.role, t.text, t.session) for t in turns] == [
        ("user", "What about ## headings\n\nand ^carets?", "s1"), ("assistant", "Fine.\n\n- a list", "s1")]
    assert {t.block_id for t in turns} == ids
    assert turns[0].block_id.startswith("t143205u") and turns[1].block_id.startswith("t143205a")
    assert turns[0].link.startswith("[[journal/2026/11/2026-11-30#^t143205u")


def test_block_ids_are_stable_and_unique():
    at = datetime(2026, 1, 1, 9, 0, 0)
    a = journal.block_id(at, "user", "hi", None)
    assert a == journal.block_id(at, "user", "hi", None)
    assert journal.block_id(at, "user", "hi", None, {a}) == a + "-2"


def test_days_are_listed_in_order_and_filtered(tmp_path):
    for d in ("2025-12-31", "2026-01-02", "2026-01-01"):
        day = date.fromisoformat(d)
        path = tmp_path / journal.day_path(day)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(journal.header(day))
    assert journal.days(tmp_path) == [
        "journal/2025/12/2025-12-31.md", "journal/2026/01/2026-01-01.md", "journal/2026/01/2026-01-02.md"]
    assert journal.days(tmp_path, since=date(2026, 1, 1), until=date(2026, 1, 1)) == ["journal/2026/01/2026-01-01.md"]


def test_messages_since_the_last_reflection(tmp_path):
    day = date(2026, 1, 1)
    at = datetime(2026, 1, 1, 9)
    text = journal.header(day)
    for n, role in enumerate(["user", "assistant", "reflection", "user", "assistant", "user"]):
        text += journal.render(at, role, f"t{n}", None, f"b{n}")
    path = tmp_path / journal.day_path(day)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    assert journal.messages_since(tmp_path, "reflection") == 3
    assert journal.messages_since(tmp_path, "archive") == 5


def test_days_since_a_date_skip_whole_months_before_it(tmp_path):
    for d in ("2025-11-30", "2026-01-31", "2026-02-01", "2026-03-05"):
        day = date.fromisoformat(d)
        path = tmp_path / journal.day_path(day)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(journal.header(day))
    assert journal.days(tmp_path, since=date(2026, 2, 1)) == ["journal/2026/02/2026-02-01.md", "journal/2026/03/2026-03-05.md"]
    assert journal.days(tmp_path, until=date(2026, 1, 31)) == ["journal/2025/11/2025-11-30.md", "journal/2026/01/2026-01-31.md"]
