"""Two devices, one memory: two clones and a guarded bare remote, the real git throughout."""

import json
from collections import Counter

import pytest

from souveraine.errors import Refused
from souveraine.laws import history, install
from souveraine.laws.repo import Repo
from souveraine.laws.verify import verify
from souveraine.store import journal
from souveraine.store.memory import Memory
from souveraine.sync import sync as flow
from bench import sync_devices as scenario
from tests.laws.steps import commit_all, git_run, write
from tests.support import assert_clean, git

START = scenario.START
say = scenario.say


@pytest.fixture
def remote(tmp_path):
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    install.install_bare(bare)
    return bare


@pytest.fixture
def laptop(memory, remote):
    """The first device. Reflect and archive run inside persist's process (not detached), so
    every commit a device makes is made before the test looks."""
    config = memory.root / "souveraine.toml"
    config.write_text(config.read_text().replace('tempos = "detached"', 'tempos = "inline"'))
    assert commit_all(memory.root, "chore(config): tempos inline").returncode == 0
    git(memory.root, "remote", "add", "origin", str(remote))
    assert flow.sync(memory).outcome == "pushed"
    return memory


def clone(remote, where) -> Memory:
    """A device that starts from the shared memory, as a person would: git clone, then hook install."""
    git(where.parent, "clone", "-q", str(remote), str(where))
    install.install(where)
    return Memory(where)


@pytest.fixture
def server(laptop, remote, tmp_path):
    return clone(remote, tmp_path / "server")


@pytest.fixture(autouse=True)
def the_time(monkeypatch):
    """``say`` sets the time of each exchange; this puts the environment back after the test."""
    monkeypatch.setenv("SOUVERAINE_NOW", START.isoformat())


def spoken(memory) -> list[tuple[str, str]]:
    """The exchanges these tests had the devices persist (the fixture's own day left out)."""
    return [(t.at.isoformat(), t.text) for t in journal.turns(memory.root, since=START.date())
            if t.role in ("user", "assistant")]


def tree(root, rev="HEAD") -> str:
    return git(root, "rev-parse", f"{rev}^{{tree}}").strip()


def test_two_devices_interleaved_agree_with_the_remote_on_every_turn_once_in_time_order(laptop, server, remote,
                                                                                        tmp_path):
    """2 devices × 40 exchanges, interleaved minute by minute, each syncing every 10 of its own
    (bench/sync_devices.py runs it at 2 × 200): one tree everywhere, every exchange once, in time
    order, witnessed once and synthesized once, the laws kept, a third clone agreeing."""
    devices = {"laptop": laptop, "server": server}
    with scenario.tally() as counted:
        outcomes = scenario.interleave(devices, 40, 10)
        scenario.settle(devices)
    found = scenario.facts(devices, remote, counted, clone(remote, tmp_path / "third"))
    assert {"merged", "pushed"} <= set(outcomes) and not {"conflict", "refused"} & set(outcomes)
    assert git(laptop.root, "rev-parse", "HEAD") == git(server.root, "rev-parse", "HEAD")
    assert (found["exchanges"], found["one_tree"], found["each_once"], found["time_order"]) == (80, True, True, True)
    assert found["witnessed"] == {1: 160}
    assert found["synthesized"] == {1: 160}
    assert (found["verify"], found["remote_breaches"]) == ({"laptop": 0, "server": 0}, 0)
    for memory in devices.values():
        assert_clean(memory.root)


def test_a_device_offline_for_100_turns_then_syncing_loses_nothing(laptop, server, remote, tmp_path):
    """The server's turns, said meanwhile, fall among the laptop's and before its witnesses:
    each device still witnesses and synthesizes its own, so every turn is taken in once."""
    away = tmp_path / "away.git"
    with scenario.tally() as counted:
        remote.rename(away)   # the laptop's link to the remote is down
        for n in range(100):
            say(laptop, n, "laptop", commit=n % 10 == 9)
            if n % 25 == 0:
                result = flow.sync(laptop)
                assert (result.outcome, result.ok) == ("offline", True)
                assert "does not appear to be a git repository" in result.reason
        away.rename(remote)
        for n in range(3, 100, 10):
            say(server, n, "server")
        assert flow.sync(server).outcome == "pushed"
        waiting = int(git(laptop.root, "rev-list", "--count", "HEAD", "--not", "origin/main"))
        result = flow.sync(laptop)
        assert (result.outcome, result.received, result.sent) == ("merged", 10, waiting + 1)
        assert flow.sync(server).outcome == "fast-forwarded"
        assert spoken(server) == spoken(laptop) and len(spoken(laptop)) == 220
        assert [at for at, _ in spoken(laptop)] == sorted(at for at, _ in spoken(laptop))
        scenario.settle({"laptop": laptop, "server": server})
    ids = [t.block_id for t in journal.turns(laptop.root, since=START.date()) if t.role in ("user", "assistant")]
    assert Counter(counted["witnessed"][i] for i in ids) == {1: 220}
    assert Counter(counted["synthesized"][i] for i in ids) == {1: 220}
    assert verify(server).breaches == [] and verify(laptop).breaches == []


def test_offline_on_the_command_line_says_so_and_exits_0(invoke, laptop, remote, tmp_path):
    remote.rename(tmp_path / "gone.git")
    write(laptop.root, "domains/sailing.md", "# Sailing\n")
    assert commit_all(laptop.root, "feat(memory): sailing").returncode == 0
    done = invoke("sync")
    assert done.exit_code == 0
    assert done.stderr.startswith(f"sync: offline, origin/main cannot be reached ('{remote}' does not "
                                  "appear to be a git repository); nothing is lost, 1 commit(s) wait to be pushed")
    assert json.loads(invoke("sync", "--json").stdout)["outcome"] == "offline"


def _person_edited_on_both(laptop, server):
    for device, city in ((laptop, "Porto"), (server, "Lisbon")):
        write(device.root, "people/ana.md", f"---\ndescription: Ana.\n---\n# Ana\n\nLives in {city}.\n")
        assert commit_all(device.root, f"fix(memory): ana lives in {city}").returncode == 0


def test_the_same_person_note_edited_on_both_sides_stops_cleanly(invoke, laptop, server, monkeypatch):
    write(laptop.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n")
    assert commit_all(laptop.root, "feat(memory): ana").returncode == 0
    assert flow.sync(laptop).outcome == "pushed" and flow.sync(server).outcome == "fast-forwarded"
    _person_edited_on_both(laptop, server)
    say(server, 1, "server")
    say(laptop, 2, "laptop")
    assert flow.sync(laptop).outcome == "pushed"
    before = git(server.root, "rev-parse", "HEAD")
    stopped = invoke("sync", "--json", memory_root=server.root)
    assert stopped.exit_code == 1
    data = json.loads(stopped.stdout)
    assert (data["outcome"], data["conflicts"], data["ok"]) == ("conflict", ["people/ana.md"], False)
    # the journal merged by itself; only the note waits for a person, nothing was committed
    assert git(server.root, "status", "--porcelain").splitlines() == ["UU people/ana.md"] or \
        "UU people/ana.md" in git(server.root, "status", "--porcelain")
    assert git(server.root, "rev-parse", "HEAD") == before
    kept = say(server, 3, "server")  # an agent goes on: its turn waits in the spool
    assert kept.kept
    again = invoke("sync", memory_root=server.root)
    assert again.exit_code == 1 and "a sync stopped on a conflict is under way" in again.stderr
    aborted = invoke("sync", "--abort", memory_root=server.root)
    assert (aborted.exit_code, aborted.stderr) == (0, "sync: aborted; the memory is as it was before the sync\n")
    assert git(server.root, "rev-parse", "HEAD~1") == before   # the spooled turn, committed once the merge was gone
    assert "server asks 3?" in [t for _, t in spoken(server)]
    assert_clean(server.root)


def test_a_stopped_sync_continues_once_the_note_is_resolved(invoke, laptop, server, monkeypatch):
    write(laptop.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n")
    assert commit_all(laptop.root, "feat(memory): ana").returncode == 0
    flow.sync(laptop), flow.sync(server)
    _person_edited_on_both(laptop, server)
    flow.sync(laptop)
    assert flow.sync(server).outcome == "conflict"
    unresolved = invoke("sync", "--continue", memory_root=server.root)
    assert unresolved.exit_code == 1 and "still unresolved: people/ana.md" in unresolved.stderr
    write(server.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n\nLived in Porto, lives in Lisbon.\n")
    done = invoke("sync", "--continue", memory_root=server.root)
    assert (done.exit_code, done.stderr) == (0, "sync: merged 1 commit(s) from origin/main, pushed 2 commit(s)\n")
    assert flow.sync(laptop).outcome == "fast-forwarded"
    assert (laptop.root / "people/ana.md").read_text().endswith("lives in Lisbon.\n")
    assert verify(laptop).breaches == []
    assert_clean(server.root)


def test_the_remote_moving_meanwhile_is_met_by_another_round(laptop, server, monkeypatch):
    say(laptop, 1, "laptop")
    fetch = flow._fetch
    moved = []

    def fetch_then_the_server_pushes(memory, result):
        found = fetch(memory, result)
        if not moved:
            moved.append(True)
            say(server, 2, "server")
            assert flow.sync(server).outcome == "pushed"
        return found

    monkeypatch.setattr(flow, "_fetch", fetch_then_the_server_pushes)
    result = flow.sync(laptop)
    assert (result.outcome, result.attempts, result.received) == ("merged", 2, 1)
    assert flow.sync(server).outcome == "fast-forwarded"
    assert spoken(server) == spoken(laptop)


def test_commits_breaking_the_laws_from_an_unguarded_remote_are_not_brought_in(laptop, tmp_path):
    forge = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", str(forge))   # a plain forge: no guard
    git(laptop.root, "remote", "add", "forge", str(forge))
    assert flow.sync(laptop, "forge").outcome == "pushed"
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(forge), str(other))
    day = next((other / "journal").rglob("*.md"))
    write(other, day.relative_to(other).as_posix(), day.read_text().replace("Good morning.", "Good night."))
    git(other, "commit", "-qam", "fix(memory): quietly", "--no-verify")
    git(other, "push", "-q", "origin", "main")
    before = git(laptop.root, "rev-parse", "HEAD")
    result = flow.sync(laptop, "forge")
    assert result.outcome == "refused" and "append-only, but this change changes its committed text" in result.breaches[0]
    assert git(laptop.root, "rev-parse", "HEAD") == before
    assert_clean(laptop.root)


def test_sync_needs_a_remote_and_a_branch(invoke, memory):
    done = invoke("sync")
    assert (done.exit_code, done.stderr) == (2, "souveraine: this memory has no remote; add one with "
                                                "'git remote add origin URL' (see docs/SYNC.md)\n")
    assert invoke("sync", "nowhere").exit_code == 2
    assert invoke("sync", "--abort").exit_code == 2


def test_a_clone_without_the_driver_gets_it_from_sync(laptop, remote, tmp_path):
    bare_clone = tmp_path / "plain"
    git(tmp_path, "clone", "-q", str(remote), str(bare_clone))   # no hook install
    plain = Memory(bare_clone)
    assert not install.installed(plain.root)["souveraine-merge"]
    assert flow.sync(plain).outcome == "up to date"
    assert install.installed(plain.root)["souveraine-merge"]


def test_init_force_and_hook_install_restore_the_driver_and_its_attributes(invoke, memory):
    git(memory.root, "config", "--unset", "merge.souveraine-append.driver")
    (memory.root / ".gitattributes").unlink()
    git(memory.root, "commit", "-qam", "chore(hooks): drop the attributes")
    assert not install.installed(memory.root)["souveraine-merge"]
    done = invoke("init", "--force", str(memory.root))
    assert done.exit_code == 0
    assert install.installed(memory.root)["souveraine-merge"]
    assert "merge=souveraine-append" in (memory.root / ".gitattributes").read_text()
    git(memory.root, "config", "--unset", "merge.souveraine-append.driver")
    write(memory.root, "souveraine.toml", '\n[laws]\nappend_only = ["ledger/commitments.md"]\n', mode="a")
    assert commit_all(memory.root, "chore(config): commitments append-only").returncode == 0
    assert invoke("hook", "install").exit_code == 0
    assert install.installed(memory.root)["souveraine-merge"]
    assert "/ledger/commitments.md merge=souveraine-append" in (memory.root / ".gitattributes").read_text()
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "chore(hooks): merge append-only files by their entries"
    assert_clean(memory.root)


def test_the_sync_tempo_skips_without_a_remote_and_tells_the_agent_when_it_stops(memory, laptop, server):
    from souveraine.clock import schedule
    from souveraine.tempos import inbox

    lonely = Memory(memory.root)
    git(lonely.root, "remote", "remove", "origin")
    assert schedule.run_job(lonely, "sync")["result"] == {"skipped": "no remote"}
    git(lonely.root, "remote", "add", "origin", git(server.root, "remote", "get-url", "origin").strip())
    write(laptop.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n")
    assert commit_all(laptop.root, "feat(memory): ana").returncode == 0
    flow.sync(laptop), flow.sync(server)
    _person_edited_on_both(laptop, server)
    flow.sync(laptop)
    before = git(server.root, "rev-parse", "HEAD")
    for _ in range(2):
        assert schedule.run_job(server, "sync")["result"]["outcome"] == "conflict"
        assert git(server.root, "rev-parse", "HEAD~1") == before   # only the inbox item: no merge under way
        assert_clean(server.root)
    pending = [item["text"] for item in inbox.items(server, "pending")]
    assert pending.count("sync: both sides changed people/ana.md, so nothing was merged and the memory is as it was; "
                         "run 'souveraine sync' by hand to resolve it") == 1


def test_a_note_being_edited_that_the_merge_would_overwrite_is_named_and_nothing_changes(laptop, server):
    write(laptop.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n")
    assert commit_all(laptop.root, "feat(memory): ana").returncode == 0
    flow.sync(laptop), flow.sync(server)
    write(laptop.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n\nLikes tea.\n")
    assert commit_all(laptop.root, "fix(memory): tea").returncode == 0
    flow.sync(laptop)
    write(server.root, "domains/sea.md", "# Sea\n")
    assert commit_all(server.root, "feat(memory): sea").returncode == 0
    write(server.root, "people/ana.md", "---\ndescription: Ana.\n---\n# Ana\n\nLikes coffee.\n")  # not committed
    before = git(server.root, "rev-parse", "HEAD")
    result = flow.sync(server)
    assert result.outcome == "refused"
    assert result.breaches == ["uncommitted changes in people/ana.md would be overwritten by the merge; commit them "
                               "(or let the tool that wrote them), then sync again"]
    assert git(server.root, "rev-parse", "HEAD") == before
    assert git(server.root, "status", "--porcelain").strip() == "M people/ana.md"
