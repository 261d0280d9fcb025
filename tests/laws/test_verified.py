"""verify's record: what was judged is not judged again while its commit is an ancestor of HEAD."""

import json

from souveraine.laws import history, verified
from souveraine.laws.verify import verify
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, write
from tests.support import git


def _head(root) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _turn(root, n: int, *extra) -> None:
    write(root, DAY, f"\nA later turn, number {n}.\n", mode="a")
    assert commit_all(root, f"chore(journal): turn {n}", *extra).returncode == 0


def _judged(monkeypatch) -> list[list[str]]:
    """The revision ranges history.judge is asked to replay, recorded as verify calls it."""
    calls, real = [], history.judge
    monkeypatch.setattr(history, "judge", lambda repo, revs, progress=None: calls.append(revs) or real(repo, revs, progress))
    return calls


def test_a_second_verify_judges_only_the_new_commits(memory, monkeypatch):
    calls = _judged(monkeypatch)
    first = verify(memory)
    assert (first.commits, first.judged, first.breaches) == (2, 2, [])
    record = verified.load(memory.root)
    assert (record.commit, record.commits) == (_head(memory.root), 2)
    for n in range(3):
        _turn(memory.root, n)
    second = verify(memory)
    assert (second.commits, second.judged, second.since) == (5, 3, record.commit)
    assert calls[-1] == [f"{record.commit}..{_head(memory.root)}"]
    third = verify(memory)
    assert (third.commits, third.judged) == (5, 0)
    assert len(calls) == 2                       # nothing new: nothing replayed


def test_breaches_on_record_are_reported_again_and_match_a_full_run(memory):
    write(memory.root, DAY, DAY_TEXT.replace("Good morning.", "Good night."))
    assert commit_all(memory.root, "tidied", "--no-verify").returncode == 0
    first = [b.to_dict() for b in verify(memory).breaches]
    assert {b["rule"] for b in first} == {"append_only_rewrite", "bad_message"}
    _turn(memory.root, 1)
    again = verify(memory)
    assert again.judged == 1
    assert [b.to_dict() for b in again.breaches] == first == [b.to_dict() for b in verify(memory, full=True).breaches]


def test_the_record_is_dropped_when_its_commit_leaves_the_history(memory):
    verify(memory)
    _turn(memory.root, 1)
    verify(memory)
    git(memory.root, "reset", "-q", "--hard", "HEAD~1")
    write(memory.root, DAY, DAY_TEXT.replace("Good morning.", "Good night."))
    assert commit_all(memory.root, "chore(journal): rewritten", "--no-verify").returncode == 0
    report = verify(memory)
    assert report.judged == report.commits == 3
    assert [b.rule for b in report.breaches] == ["append_only_rewrite"]


def test_the_record_is_dropped_when_the_laws_change(memory):
    verify(memory)
    path = memory.root / ".souveraine" / verified.FILE
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "laws": "other code"}))
    assert verify(memory).judged == 2


def test_a_damaged_record_costs_a_full_replay_not_a_failure(memory):
    verify(memory)
    (memory.root / ".souveraine" / verified.FILE).write_text("{not json")
    assert verify(memory).judged == 2


def test_the_tools_own_commit_moves_the_record_and_a_hand_commit_does_not(memory):
    verify(memory)
    with memory.change("chore(journal): a turn by the tool") as change:
        change.append(DAY, "\nSaid through the tool.\n")
    assert verified.load(memory.root).commit == _head(memory.root)
    assert verify(memory).judged == 0
    _turn(memory.root, 1)                        # by hand, through git and its hooks
    assert verified.load(memory.root).commit != _head(memory.root)
    assert verify(memory).judged == 1


def test_since_and_full_leave_the_record_out(memory, monkeypatch):
    verify(memory)
    _turn(memory.root, 1)
    calls = _judged(monkeypatch)
    assert verify(memory, since="HEAD~1").judged == 1
    assert verify(memory, full=True).judged == 3
    assert calls == [[f"{git(memory.root, 'rev-parse', 'HEAD~1').strip()}..{_head(memory.root)}"], [_head(memory.root)]]


def test_the_cli_says_how_much_was_on_record(invoke, memory):
    assert invoke("verify").stderr == "2 commits verified, no breaches\n"
    _turn(memory.root, 1)
    assert invoke("verify").stderr == "3 commits (1 judged, 2 on record) verified, no breaches\n"
    assert invoke("verify", "--full").stderr == "3 commits verified, no breaches\n"
