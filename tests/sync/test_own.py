"""Each device witnesses and synthesizes its own turns once the memory syncs (sync.own); the caches follow a merge."""

import json

from souveraine.sync import own
from souveraine.sync import sync as flow
from souveraine.tempos import counters, reflect
from tests.laws.steps import git_run
from tests.sync.conftest import invoke  # noqa: F401  a fixture
from tests.support import git
from tests.sync.test_sync import laptop, remote, say, server, the_time  # noqa: F401  fixtures


def ids(turns) -> list[str]:
    return [t.block_id for t in turns if t.role in ("user", "assistant")]


def test_a_memory_that_never_synced_goes_by_the_file(memory):
    assert own.load(memory) is None and own.window(memory) is None
    say(memory, 1, "alone")
    assert not own.path(memory).exists()
    assert ids(reflect.window(memory)[0]) == ids(counters.unwitnessed(memory)[0])


def test_the_first_sync_keeps_this_device_s_turns_and_a_fresh_clone_starts_with_none(laptop, server):
    """The laptop synced first (its fixture): what it had not witnessed is its own; the server,
    cloned from the remote, has nothing of its own until it speaks."""
    assert ids(own.window(laptop)[0]) == ids(counters.unwitnessed(laptop)[0]) and own.count(laptop) == 2
    said = say(laptop, 1, "laptop")
    assert ids(own.window(laptop)[0])[-2:] == [t["block_id"] for t in said.turns] and own.count(laptop) == 4
    assert flow.sync(laptop).outcome == "pushed" and flow.sync(server).outcome == "fast-forwarded"
    assert (own.count(server), own.count(server, "synthesized")) == (0, 0)
    assert len(ids(counters.unwitnessed(server)[0])) == 4      # by the file, it would have taken the laptop's


def test_a_witness_counts_once_committed(laptop):
    say(laptop, 1, "laptop")
    waiting = ids(own.window(laptop)[0])
    turns, _ = own.window(laptop)
    own.witnessed(laptop, turns[-1].path, "tnotthere", [t for t in turns if t.role in ("user", "assistant")])
    assert ids(own.window(laptop)[0]) == waiting        # its commit never came: nothing was witnessed
    done = reflect.run(laptop, force=True, extractive_only=True)
    assert done["reflected"] and own.window(laptop)[0] == []
    assert own.window(laptop)[1].block_id == done["block_id"]
    say(laptop, 2, "laptop")
    assert own.count(laptop) == 2 and counters.rebuild(laptop).reflection == 2


def test_a_plain_git_pull_starts_the_record_and_the_counts_follow(laptop, server, tmp_path):
    plain = tmp_path / "plain"
    git(tmp_path, "clone", "-q", str(git(laptop.root, "remote", "get-url", "origin").strip()), str(plain))
    from souveraine.laws import install
    from souveraine.store.memory import Memory

    install.install(plain)
    device = Memory(plain)
    say(server, 5, "server")
    assert flow.sync(server).outcome == "pushed"
    said = say(device, 6, "plain")
    assert not own.path(device).exists()
    done = git_run(plain, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert done.returncode == 0, done.stderr
    assert ids(own.window(device)[0]) == [t["block_id"] for t in said.turns]
    assert counters.load(device).reflection == 2


def test_after_a_merge_the_caches_know_the_other_device_s_work(invoke, laptop, server):
    from souveraine.identity.catalog import catalog
    from souveraine.identity.memories import remember

    assert invoke("recall", "harbour", "--json", memory_root=server.root).exit_code in (0, 1)  # the index is built
    before = catalog(server).count
    counted = counters.load(server)
    counters.save(server, counted)
    said = say(laptop, 1, "laptop")
    remember(laptop, "Tomás keeps bees on the hill above the harbour.")
    say(server, 2, "server")
    assert flow.sync(laptop).outcome == "pushed" and flow.sync(server).outcome == "merged"
    found = invoke("recall", "bees", "--json", memory_root=server.root)
    assert "memories/2026/2026-12-01-tomas-keeps-bees" in found.stdout
    hits = json.loads(invoke("recall", "laptop asks", "--json", memory_root=server.root).stdout)
    assert said.turns[0]["block_id"] in [hit["block"] for hit in hits]
    assert catalog(server).count == before + 1
    assert counters.load(server).reflection == own.count(server) == 2


def test_with_the_archivist_off_the_record_is_kept_short_by_the_witnesses(laptop):
    config = laptop.root / "souveraine.toml"
    config.write_text(config.read_text().replace("[archivist]\nenabled = true", "[archivist]\nenabled = false"))
    git(laptop.root, "commit", "-qam", "chore(config): no archivist")
    from souveraine.store.memory import Memory

    device = Memory(laptop.root)
    for n in range(3):
        say(device, n, "laptop")
    assert reflect.run(device, force=True, extractive_only=True)["reflected"]
    say(device, 5, "laptop")
    assert reflect.run(device, force=True, extractive_only=True)["reflected"]   # compacts what the first took in
    lines = own.path(device).read_text().splitlines()
    assert [line.split(" ")[0] for line in lines] == ["turn", "turn", "cursor", "cursor", "last", "witness"]
    assert own.window(device)[0] == []
