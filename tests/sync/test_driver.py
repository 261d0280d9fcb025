"""The merge driver for append-only files: every entry kept, ordered by time, the same whichever side merges."""

import random

import pytest

from souveraine.laws import entries
from souveraine.laws.appendonly import merge_breaches
from souveraine.sync import attributes
from souveraine.sync.driver import Conflict, merge
from tests.laws.steps import commit_all, git_run, write
from tests.support import assert_clean, git

DAY = "journal/2026/01/2026-01-06.md"
HEADER = ("---\ntype: journal\ndate: 2026-01-06\ndescription: What was said and witnessed on Tuesday 6 January 2026.\n"
          "tags:\n  - journal\n---\n# Tuesday 6 January 2026\n")
VOICE = "system/metacognition/subconscious.md"


def turn(at: str, words: str, role: str = "user") -> str:
    return f"\n## {at} · {role} · session `s1`\n\n{words}\n\n^t{at.replace(':', '')}{role[0]}{abs(hash(words)) % 65536:04x}\n"


def times(data: bytes, path: str = DAY) -> list[str]:
    [(_, found)] = entries.split([data], path)
    return [e.time for e in found]


def test_both_sides_turns_are_kept_in_time_order_whichever_side_merges():
    base = (HEADER + turn("09:00:00", "Morning.")).encode()
    ours = base + (turn("09:10:00", "Ours, first.") + turn("09:30:00", "Ours, second.")).encode()
    theirs = base + (turn("09:20:00", "Theirs.") + turn("09:40:00", "Theirs, later.")).encode()
    merged, collisions = merge(base, ours, theirs, DAY)
    assert merge(base, theirs, ours, DAY)[0] == merged
    assert times(merged) == ["2026-01-06T09:00:00", "2026-01-06T09:10:00", "2026-01-06T09:20:00",
                             "2026-01-06T09:30:00", "2026-01-06T09:40:00"]
    assert merged.startswith(base) and collisions == []
    assert merge_breaches(DAY, base, [ours, theirs], merged) == []


def test_the_same_day_begun_on_both_devices_merges():
    """Two devices' first turns of a day each create the file: git gives the driver an empty ancestor."""
    ours, theirs = (HEADER + turn("08:00:00", "Ours.")).encode(), (HEADER + turn("07:00:00", "Theirs.")).encode()
    merged, _ = merge(None, ours, theirs, DAY)
    assert merged == (HEADER + turn("07:00:00", "Theirs.") + turn("08:00:00", "Ours.")).encode()


def test_many_syncs_converge_on_every_turn_once_in_time_order():
    """Two devices appending and merging with a shared copy at random moments, as sync does:
    each merge's ancestor is what that device last shared, so sides are often already interleaved."""
    rng = random.Random(7)
    start = HEADER.encode()
    device = {"a": start, "b": start}
    shared_at = {"a": start, "b": start}
    remote = start
    said = []
    for n, second in enumerate(sorted(rng.sample(range(30_000, 80_000), 300))):
        who = rng.choice("ab")
        at = f"{second // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}"
        device[who] += turn(at, f"{who} said {n}").encode()
        said.append(f"{who} said {n}")
        if rng.random() < 0.15:
            merged, _ = merge(shared_at[who], device[who], remote, DAY)
            assert merge(shared_at[who], remote, device[who], DAY)[0] == merged
            assert merge_breaches(DAY, shared_at[who], [device[who], remote], merged) == []
            device[who] = remote = shared_at[who] = merged
    for who in "aba":
        device[who] = remote = shared_at[who] = merge(shared_at[who], device[who], remote, DAY)[0]
    assert device["a"] == device["b"] == remote
    found = times(remote)
    assert found == sorted(found) and len(found) == 300
    assert sorted(t.text for t in _turns(remote)) == sorted(said)


def _turns(data: bytes):
    from souveraine.store import journal

    return journal.parse(data.decode(), DAY)


def test_a_side_that_changed_committed_text_is_refused_with_the_law_s_words():
    base = (HEADER + turn("09:00:00", "Morning.")).encode()
    ours = base.replace(b"Morning.", b"Evening.") + turn("09:10:00", "Ours.").encode()
    theirs = base + turn("09:20:00", "Theirs.").encode()
    with pytest.raises(Conflict) as refused:
        merge(base, ours, theirs, DAY)
    assert str(refused.value) == (f"{DAY}: append-only, but one side changes its committed text at line 10; "
                                  "restore the committed text and append a correction entry instead")


def test_a_note_written_after_the_last_turn_by_hand_stays_with_it():
    base = (HEADER + turn("09:00:00", "Morning.")).encode()
    ours = base + b"\nA note by hand, after the turn.\n"
    theirs = base + turn("08:30:00", "Theirs, written late.").encode()
    merged, _ = merge(base, ours, theirs, DAY)
    assert merged == ours + turn("08:30:00", "Theirs, written late.").encode()
    assert merge(base, theirs, ours, DAY)[0] == merged


def test_the_inner_voice_merges_line_by_line_in_time_order():
    head = "---\ntype: inner-voice\n---\n# Inner voice\n"
    base = (head + "[2026-01-05 09:00] [URGENCY: low] — First.\n").encode()
    ours = base + "[2026-01-05 09:30] [URGENCY: low] — Ours.\n".encode()
    theirs = base + "[2026-01-05 09:10] [URGENCY: medium] — Theirs.\n[2026-01-05 09:40] [URGENCY: low] — Late.\n".encode()
    merged, _ = merge(base, ours, theirs, VOICE)
    assert merged.decode().splitlines()[-3:] == ["[2026-01-05 09:10] [URGENCY: medium] — Theirs.",
                                                 "[2026-01-05 09:30] [URGENCY: low] — Ours.",
                                                 "[2026-01-05 09:40] [URGENCY: low] — Late."]


def test_one_block_id_on_two_different_turns_is_named_and_both_are_kept():
    base = (HEADER + turn("09:00:00", "Morning.")).encode()
    ours = base + b"\n## 09:10:00 \xc2\xb7 user\n\nOurs.\n\n^t091000uaaaa\n"
    theirs = base + b"\n## 09:10:00 \xc2\xb7 user\n\nTheirs.\n\n^t091000uaaaa\n"
    merged, collisions = merge(base, ours, theirs, DAY)
    assert collisions == ["t091000uaaaa"]
    assert b"Ours." in merged and b"Theirs." in merged


def test_two_different_beginnings_are_left_to_a_person():
    with pytest.raises(Conflict, match="the two sides began it differently"):
        merge(None, (HEADER + turn("09:00:00", "x")).encode(), ("# Other\n" + turn("09:01:00", "y")).encode(), DAY)


def test_git_merges_two_branches_journals_by_itself_and_the_laws_accept_it(memory):
    root = memory.root
    day = root / DAY
    write(root, DAY, HEADER + turn("09:00:00", "Morning."))
    assert commit_all(root, "chore(journal): a turn").returncode == 0
    git(root, "checkout", "-q", "-b", "side")
    write(root, DAY, turn("09:10:00", "Side.") + turn("09:30:00", "Side, later."), mode="a")
    write(root, VOICE, "[2026-01-05 09:30] [URGENCY: low] — From the side.\n", mode="a")
    assert commit_all(root, "chore(journal): side").returncode == 0
    git(root, "checkout", "-q", "main")
    write(root, DAY, turn("09:20:00", "Main."), mode="a")
    write(root, VOICE, "[2026-01-05 09:20] [URGENCY: low] — From main.\n", mode="a")
    assert commit_all(root, "chore(journal): main").returncode == 0
    done = git_run(root, "merge", "--no-edit", "side")
    assert done.returncode == 0, done.stderr
    assert [t.text for t in _turns(day.read_bytes())] == ["Morning.", "Side.", "Main.", "Side, later."]
    assert (root / VOICE).read_text().splitlines()[-2:] == ["[2026-01-05 09:20] [URGENCY: low] — From main.",
                                                            "[2026-01-05 09:30] [URGENCY: low] — From the side."]
    from souveraine.laws.verify import verify

    assert verify(memory).breaches == []
    assert_clean(root)


def test_a_path_the_laws_do_not_hold_append_only_gets_git_s_own_merge(memory):
    root = memory.root
    with open(root / attributes.FILE, "a") as handle:
        handle.write("/people/** merge=souveraine-append\n")   # too broad: the driver knows better
    write(root, "people/ana.md", "# Ana\n\nLikes tea.\n\nLives in Porto.\n")
    assert commit_all(root, "feat(memory): ana").returncode == 0
    git(root, "checkout", "-q", "-b", "side")
    write(root, "people/ana.md", "# Ana\n\nLikes green tea.\n\nLives in Porto.\n")
    assert commit_all(root, "fix(memory): green tea").returncode == 0
    git(root, "checkout", "-q", "main")
    write(root, "people/ana.md", "# Ana\n\nLikes tea.\n\nLives in Lisbon.\n")
    assert commit_all(root, "fix(memory): lisbon").returncode == 0
    assert git_run(root, "merge", "--no-edit", "side").returncode == 0
    assert (root / "people/ana.md").read_text() == "# Ana\n\nLikes green tea.\n\nLives in Lisbon.\n"


def test_attributes_are_the_laws_own_list_and_keep_a_person_s_lines():
    block = attributes.block(["ledger/commitments.md", "notes/my log.md"])
    assert block.splitlines() == [
        attributes.BEGIN, "/system/metacognition/subconscious.md merge=souveraine-append",
        "/chronicle/** merge=souveraine-append", "/inbox/sent.md merge=souveraine-append",
        "/journal/** merge=souveraine-append", "/reference/reports/** merge=souveraine-append",
        "/ledger/commitments.md merge=souveraine-append", '"/notes/my log.md" merge=souveraine-append', attributes.END]
    mine = "*.png binary\n"
    assert attributes.updated(mine) == mine + attributes.block()
    assert attributes.updated(mine + attributes.block()) is None
    grown = attributes.updated(mine + attributes.block() + "*.pdf binary\n", ["ledger/x.md"])
    assert grown == mine + attributes.block(["ledger/x.md"]) + "*.pdf binary\n"
