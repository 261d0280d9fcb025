import subprocess
import time

import pytest

from souveraine.errors import LockTimeout, Refused, UsageError
from souveraine.store import git as gitstore
from souveraine.store.memory import Memory
from tests.support import assert_clean, git


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a/../../x", "", "."])
def test_paths_cannot_escape(memory, bad):
    with pytest.raises(UsageError):
        memory.path(bad)


def test_paths_cannot_escape_through_a_link(memory, tmp_path):
    (memory.root / "people" / "out").symlink_to(tmp_path)
    with pytest.raises(UsageError, match="through a link"):
        memory.path("people/out/x.md")


def test_change_commits_exactly_its_paths(memory):
    (memory.root / "domains" / "unrelated.md").write_text("draft\n")
    with memory.change("feat(memory): add a note") as change:
        change.write("memories/a.md", "---\ndescription: a\n---\nA\n")
    assert change.sha == git(memory.root, "rev-parse", "HEAD").strip()
    shown = git(memory.root, "show", "--name-only", "--format=", "HEAD").split()
    assert shown == ["memories/a.md"]
    assert git(memory.root, "status", "--porcelain").strip() == "?? domains/unrelated.md"


def test_what_a_person_staged_stays_staged_and_out_of_the_commit(memory):
    (memory.root / "domains" / "staged.md").write_text("staged by hand\n")
    git(memory.root, "add", "domains/staged.md")
    with memory.change("feat(memory): add a note") as change:
        change.write("memories/a.md", "---\ndescription: a\n---\nA\n")
    assert git(memory.root, "show", "--name-only", "--format=", "HEAD").split() == ["memories/a.md"]
    assert git(memory.root, "status", "--porcelain").strip() == "A  domains/staged.md"


def test_a_commit_reads_as_git_commit_writes_it(memory):
    with memory.change("feat(memory): add a note  \n\n\nWith a body.   \n\n") as change:
        change.write("memories/a.md", "---\ndescription: a\n---\nA\n")
    assert git(memory.root, "log", "-1", "--format=%B", "HEAD") == "feat(memory): add a note\n\nWith a body.\n\n"
    assert git(memory.root, "log", "-g", "-1", "--format=%gs", "HEAD").strip() == "commit: feat(memory): add a note"
    assert git(memory.root, "rev-parse", "HEAD^").strip() == git(memory.root, "rev-parse", "HEAD@{1}").strip()
    assert_clean(memory.root)


def test_no_commit_when_nothing_changed(memory):
    head = git(memory.root, "rev-parse", "HEAD")
    text = memory.read_text("system/state.md")
    with memory.change("fix(memory): same") as change:
        change.write("system/state.md", text)
    assert change.sha is None and git(memory.root, "rev-parse", "HEAD") == head


def test_a_refused_change_puts_every_file_back(memory):
    before = memory.read_text("system/metacognition/subconscious.md")
    with pytest.raises(Refused, match="append-only"):
        with memory.change("fix(memory): rewrite history") as change:
            change.write("system/metacognition/subconscious.md", "rewritten\n")
            change.write("memories/new.md", "new\n")
    assert memory.read_text("system/metacognition/subconscious.md") == before
    assert not (memory.root / "memories" / "new.md").exists()
    assert_clean(memory.root)


def test_a_bad_message_is_refused_before_anything_is_committed(memory):
    with pytest.raises(Refused, match="not a Conventional Commit"):
        with memory.change("added stuff") as change:
            change.write("memories/new.md", "new\n")
    assert not (memory.root / "memories" / "new.md").exists()
    assert_clean(memory.root)


def test_an_inherited_git_dir_never_redirects(memory, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    with memory.change("feat(memory): sealed") as change:
        change.write("memories/sealed.md", "x\n")
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert "feat(memory): sealed" in git(memory.root, "log", "-1", "--format=%s")
    done = subprocess.run(["git", "-C", str(other), "log"], capture_output=True)
    assert done.returncode != 0  # the other repository still has no commit


def test_author_comes_from_config_when_git_has_none(memory, monkeypatch, tmp_path):
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("EMAIL", "")
    monkeypatch.delenv("EMAIL")
    gitstore._author_checked.clear()
    with Memory(memory.root).change("feat(memory): from cron") as change:
        change.write("memories/cron.md", "x\n")
    assert git(memory.root, "log", "-1", "--format=%an <%ae>").strip() == "Souveraine <souveraine@localhost>"
    gitstore._author_checked.clear()


def test_the_second_command_waits_then_fails_clearly(memory):
    import sys

    from tests.support import ROOT

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys,time; from souveraine.store.memory import Memory\n"
         "with Memory(sys.argv[1]).lock():\n    print('held', flush=True); time.sleep(3)", str(memory.root)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(LockTimeout, match=rf"busy \(held by pid {holder.pid} \(python\) for \d+\.\ds\); "
                                          r"this process waited 0\.[2-9]s; try again"):
        with memory.lock(timeout=0.2):
            pass
    holder.kill()
    holder.wait()


def test_waiters_take_the_lock_first_come_first_served(memory, tmp_path):
    import sys

    from tests.support import ROOT

    order = tmp_path / "order"
    queue = memory.cache / "lock.queue"
    code = ("import sys; from souveraine.store.memory import Memory\n"
            "with Memory(sys.argv[1]).lock(timeout=60):\n"
            "    open(sys.argv[2], 'a').write(sys.argv[3] + '\\n')")
    waiters = []
    with memory.lock():
        for n in range(5):
            waiters.append(subprocess.Popen([sys.executable, "-c", code, str(memory.root), str(order), str(n)], cwd=ROOT))
            deadline = time.monotonic() + 30
            while len([p for p in queue.iterdir() if not p.name.startswith(".")]) < n + 2:
                assert time.monotonic() < deadline, "a waiter never took its ticket"
                time.sleep(0.01)
    for waiter in waiters:
        assert waiter.wait(timeout=60) == 0
    assert order.read_text().split() == ["0", "1", "2", "3", "4"]
    assert [p.name for p in queue.iterdir()] == []


def test_a_ticket_whose_owner_died_does_not_block_the_queue(memory):
    queue = memory.cache / "lock.queue"
    queue.mkdir(parents=True, exist_ok=True)
    (queue / "00000000000000000001-99999-00000-dead").write_text("")
    started = time.monotonic()
    with memory.lock(timeout=5):
        pass
    assert time.monotonic() - started < 2
    assert list(queue.iterdir()) == []
