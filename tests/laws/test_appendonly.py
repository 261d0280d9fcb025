import pytest

from souveraine.errors import Refused
from souveraine.laws import precommit
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, git_run, refusal, write
from tests.support import assert_clean, git

FIX = "restore the committed text and append a correction entry instead"


def head(root):
    return git(root, "rev-parse", "HEAD").strip()


def test_an_append_is_accepted(memory):
    write(memory.root, DAY, "\n## 09:01:00 · user · session `s1`\n\nOne more thing.\n\n^t090100u5e6f\n", mode="a")
    done = commit_all(memory.root, "chore(journal): one more turn")
    assert (done.returncode, done.stderr) == (0, "")
    assert_clean(memory.root)


def _edit_middle(root):
    write(root, DAY, DAY_TEXT.replace("Good morning.", "Good evening."))


def _delete(root):
    (root / DAY).unlink()


def _rename(root):
    git(root, "mv", DAY, "journal/2026/01/monday.md")


def _truncate(root):
    write(root, DAY, DAY_TEXT[:-40])


def _crlf(root):
    write(root, DAY, DAY_TEXT.replace("\n", "\r\n"))


@pytest.mark.parametrize("breach, expected", [
    (_edit_middle, f"{DAY}: append-only, but this change changes its committed text at line 12; {FIX}"),
    (_delete, f"{DAY}: append-only, so it cannot be deleted; restore it (git checkout HEAD -- {DAY}) and append a correction entry instead"),
    (_rename, f"{DAY}: append-only, so it cannot be renamed or moved (to journal/2026/01/monday.md); move it back and link to it instead"),
    (_truncate, f"{DAY}: append-only, but this change cuts 40 bytes from its end; {FIX}"),
    (_crlf, f"{DAY}: append-only, but this change changes its committed text at line 1 (its line endings were rewritten to CRLF); {FIX}"),
])
def test_rewriting_a_journal_is_refused(memory, breach, expected):
    before = head(memory.root)
    breach(memory.root)
    done = commit_all(memory.root, "fix(memory): tidy the journal")
    assert refusal(done) == [f"souveraine: {expected}"]
    assert head(memory.root) == before


def test_the_tool_rolls_back_a_refused_change(memory):
    with pytest.raises(Refused) as refused:
        with memory.change("fix(memory): soften the greeting") as change:
            change.write(DAY, DAY_TEXT.replace("Good morning.", "Hello."))
    assert str(refused.value) == f"{DAY}: append-only, but this change changes its committed text at line 12; {FIX}"
    assert (memory.root / DAY).read_text() == DAY_TEXT
    assert_clean(memory.root)


def test_problems_reads_the_staged_index_in_process(memory):
    assert precommit.problems(memory.root) == []
    _truncate(memory.root)
    git(memory.root, "add", DAY)
    assert precommit.problems(memory.root) == [f"{DAY}: append-only, but this change cuts 40 bytes from its end; {FIX}"]


def test_a_commit_of_named_paths_is_judged_on_its_own_index(memory):
    """`git commit -- path` judges a temporary index holding only that path's change."""
    _edit_middle(memory.root)
    git(memory.root, "add", DAY)  # a breach staged, but not part of this commit
    write(memory.root, "people/bob.md", "---\ndescription: Bob.\n---\n# Bob\n")
    git(memory.root, "add", "people/bob.md")
    done = git_run(memory.root, "commit", "-q", "-m", "feat(memory): meet bob", "--", "people/bob.md")
    assert (done.returncode, done.stderr) == (0, "")
    refused = git_run(memory.root, "commit", "-q", "-m", "fix(memory): the greeting")
    assert refused.returncode == 1


def test_extra_append_only_globs_come_from_souveraine_toml(memory):
    write(memory.root, "souveraine.toml", '\n[laws]\nappend_only = ["ledger/commitments.md"]\n', mode="a")
    assert commit_all(memory.root, "chore(config): keep commitments append-only").returncode == 0
    ledger = memory.root / "ledger" / "commitments.md"
    write(memory.root, "ledger/commitments.md", ledger.read_text().replace("\n", "\n\n", 1))
    done = commit_all(memory.root, "fix(memory): reflow")
    assert refusal(done)
    assert "ledger/commitments.md: append-only, but this change changes its committed text at line" in done.stderr


def test_the_inner_voice_is_append_only(memory):
    write(memory.root, "system/metacognition/subconscious.md", "")
    done = commit_all(memory.root, "chore(journal): silence")
    assert "system/metacognition/subconscious.md: append-only, but this change cuts" in done.stderr


def test_amending_the_last_append_is_allowed_but_not_older_text(memory):
    write(memory.root, DAY, "\nA turn with a typo: teh.\n", mode="a")
    assert commit_all(memory.root, "chore(journal): a turn").returncode == 0
    write(memory.root, DAY, DAY_TEXT + "\nA turn with the typo fixed.\n")
    amended = commit_all(memory.root, "chore(journal): a turn", "--amend")
    assert (amended.returncode, amended.stderr) == (0, "")
    assert git(memory.root, "show", "HEAD:" + DAY).endswith("the typo fixed.\n")
    _edit_middle(memory.root)
    refused = commit_all(memory.root, "chore(journal): a turn", "--amend")
    assert refused.returncode == 1
    assert "changes its committed text at line 12" in refused.stderr


def _branches_appending(root):
    git(root, "checkout", "-q", "-b", "side")
    write(root, DAY, "\nFrom the side.\n", mode="a")
    assert commit_all(root, "chore(journal): side turn").returncode == 0
    git(root, "checkout", "-q", "main")
    write(root, DAY, "\nFrom main.\n", mode="a")
    assert commit_all(root, "chore(journal): main turn").returncode == 0
    merged = git_run(root, "merge", "-q", "--no-commit", "side")  # the merge driver joins them; the tests write their own
    assert merged.returncode == 0, merged.stderr


def test_a_merge_keeping_both_sides_appends_is_accepted(memory):
    _branches_appending(memory.root)
    write(memory.root, DAY, DAY_TEXT + "\nFrom main.\n\nFrom the side.\n")
    done = commit_all(memory.root, "Merge branch 'side'", "--no-edit")
    assert (done.returncode, done.stderr) == (0, "")
    assert len(git(memory.root, "log", "-1", "--format=%P").split()) == 2
    assert_clean(memory.root)


def test_a_merge_dropping_one_side_is_refused(memory):
    _branches_appending(memory.root)
    write(memory.root, DAY, DAY_TEXT + "\nFrom main.\n")
    done = commit_all(memory.root, "Merge branch 'side'", "--no-edit")
    assert done.returncode == 1
    assert done.stderr == (f"souveraine: {DAY}: append-only, but this merge drops or changes the entry at line 22 of what "
                           "one side holds; keep both sides' entries whole, one after the other\n")


def _turn(at, words):
    return f"\n## {at} · user · session `s1`\n\n{words}\n\n^t{at.replace(':', '')}u0000\n"


def _branches_of_turns(root):
    git(root, "checkout", "-q", "-b", "side")
    write(root, DAY, _turn("09:10:00", "Side, first.") + _turn("09:30:00", "Side, second."), mode="a")
    assert commit_all(root, "chore(journal): side turns").returncode == 0
    git(root, "checkout", "-q", "main")
    write(root, DAY, _turn("09:20:00", "Main."), mode="a")
    assert commit_all(root, "chore(journal): main turn").returncode == 0
    git_run(root, "merge", "-q", "--no-commit", "side")


def test_a_merge_setting_both_sides_turns_in_time_order_is_accepted(memory):
    _branches_of_turns(memory.root)
    write(memory.root, DAY, DAY_TEXT + _turn("09:10:00", "Side, first.") + _turn("09:20:00", "Main.")
          + _turn("09:30:00", "Side, second."))
    done = commit_all(memory.root, "Merge branch 'side'", "--no-edit")
    assert (done.returncode, done.stderr) == (0, "")
    assert_clean(memory.root)


@pytest.mark.parametrize("merged, line", [
    (DAY_TEXT.replace("Good morning.", "Good morning.\nA line slipped into an old turn.") + _turn("09:10:00", "Side, first.")
     + _turn("09:20:00", "Main.") + _turn("09:30:00", "Side, second."), 10),
    (DAY_TEXT + _turn("09:30:00", "Side, second.") + _turn("09:10:00", "Side, first.") + _turn("09:20:00", "Main."), 28),
])
def test_a_merge_slipping_text_into_an_entry_or_reordering_a_side_is_refused(memory, merged, line):
    _branches_of_turns(memory.root)
    write(memory.root, DAY, merged)
    done = commit_all(memory.root, "Merge branch 'side'", "--no-edit")
    assert refusal(done) == [f"souveraine: {DAY}: append-only, but this merge drops or changes the entry at line {line} "
                             "of what one side holds; keep both sides' entries whole, one after the other"]

