import json
import sys
import time

import pytest

from souveraine.agents import delivery, events
from souveraine.identity import memories
from souveraine.store import notes
from souveraine.tempos import inbox
from souveraine.tempos.persist import persist
from souveraine.tempos.surface import surface
from souveraine.tempos.transcripts import Exchange
from tests.support import assert_clean, git

RECORDER = """\
import json, os, subprocess, sys
event = json.load(sys.stdin)
head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
with open(sys.argv[1], "a") as out:
    out.write(json.dumps({"event": event["event"], "id": event["id"], "commit": event["commit"], "head": head,
                          "env": os.environ["SOUVERAINE_EVENT"], "data": event["data"]}) + "\\n")
"""


def names(found) -> list[str]:
    return [e.name for e in found]


def set_command(memory, command: str) -> None:
    text = memory.read_text("souveraine.toml") + f"\n[events]\ncommand = {json.dumps(command)}\n"
    with memory.change("chore(init): run a command for each event") as change:
        change.write("souveraine.toml", text)


@pytest.fixture
def recorder(tmp_path):
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    out = tmp_path / "events.jsonl"
    return f"{sys.executable} {script} {out}", out


def test_events_follow_commits_in_order(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")
    start = events.head(memory)
    kept = memories.remember(memory, "Ada's sister is Lea.")
    persist(memory, Exchange(user="The staging server is 10.0.0.5", assistant="Thanks, that helps.", session="s1"))
    inbox.add(memory, "Call the plumber", "high")
    surface(memory)
    found = events.events(memory, start)
    assert names(found) == ["memory.added", "journal.appended", "inbox.queued", "inbox.surfaced"]
    added, appended, queued, surfaced = (e.to_dict() for e in found)
    assert added["data"]["id"] == kept["id"] and added["data"]["tier"] == "episodic"
    assert added["data"]["description"] == "Ada's sister is Lea."
    assert added["path"] == kept["path"] and added["subject"].startswith("feat(memory): remember")
    assert [(t["role"], t["session"], t["time"]) for t in appended["data"]["turns"]] == \
        [("user", "s1", "14:32:05"), ("assistant", "s1", "14:32:05")]
    assert queued["data"]["text"] == surfaced["data"]["text"] == "Call the plumber"
    assert surfaced["data"]["viewport"] == "high"
    shas = git(memory.root, "rev-list", "--reverse", f"{start}..HEAD").split()
    assert [e["commit"] for e in (added, appended, queued, surfaced)] == shas
    assert events.events(memory, shas[-2]) == found[-1:]


def test_a_memory_forgotten_by_hand_and_a_chronicle_entry(memory):
    kept = memories.remember(memory, "The plumber comes on Friday.")
    start = events.head(memory)
    with memory.change("feat(identity): seal memory 0f3c9a1b as constitutive") as change:
        change.write("chronicle/ada.md", "# Chronicle of ada\n\n## 2026-11-30T14:32:05+00:00 · seal\n\n"
                                         "- memory: `0f3c9a1b`\n- tier: constitutive\n")
    with memory.change("feat(memory): forget the plumber") as change:
        change.delete(kept["path"])
    entry, forgotten = events.events(memory, start)
    assert entry.name == "chronicle.entry_added"
    assert entry.data == {"identity": "ada", "moment": "2026-11-30T14:32:05+00:00", "kind": "seal",
                          "fields": {"memory": "0f3c9a1b", "tier": "constitutive"}}
    assert (forgotten.name, forgotten.data["id"]) == ("memory.forgotten", kept["id"])


def test_tier_and_witness_changes_read_from_the_frontmatter(memory):
    kept = memories.remember(memory, "I keep my word.")
    note = notes.read(memory.path(kept["path"]))
    start = events.head(memory)
    commit = events.Commit("0" * 40, "2026-11-30T14:32:05+00:00", "feat(identity): elevate", [("M", kept["path"])],
                           added={kept["path"]: ["tier: constitutive", "attesters:", "- did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"]},
                           removed={kept["path"]: ["tier: episodic"]})
    [elevated] = events.of_commit(memory, commit)
    assert (elevated.name, elevated.data["tier"]) == ("memory.elevated", "constitutive")
    assert elevated.data["attested_by"] == ["did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"]
    commit.added[kept["path"]] = ["  - did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"]
    commit.removed[kept["path"]] = []
    [attested] = events.of_commit(memory, commit)
    assert attested.name == "memory.attested"
    assert str(note["id"]) == kept["id"] and start


def test_a_commit_nothing_describes_is_a_commit_event(memory):
    with memory.change("docs(memory): a decision") as change:
        change.write("reference/decisions/tabs.md", "---\ndescription: Tabs.\n---\nTabs.\n")
    [event] = events.for_commit(memory)
    assert (event.name, event.data) == ("commit", {"paths": ["reference/decisions/tabs.md"]})


def test_memories_moved_into_their_year_folders_are_one_commit_event(memory, monkeypatch):
    from souveraine.care import years
    from souveraine.store import layout

    real = layout.memory_path
    monkeypatch.setattr(layout, "memory_path", lambda name: f"memories/{name}")    # as older versions wrote
    kept = memories.remember(memory, "The plumber comes on Friday.")
    monkeypatch.setattr(layout, "memory_path", real)
    years.migrate(memory)
    [event] = events.for_commit(memory)          # nothing added, nothing forgotten
    moved = layout.memory_path(kept["path"].split("/")[1])
    assert (event.name, sorted(event.data["paths"])) == ("commit", sorted([kept["path"], moved]))


def test_since_must_name_a_commit_or_a_date(invoke):
    done = invoke("events", "--since", "nope")
    assert done.exit_code == 2
    assert done.output == ("souveraine: 'nope' is neither a commit of this memory nor a date; give a commit id, "
                           "a tag, HEAD~N, or a date like 2026-12-01 or 'yesterday'\n")


def test_since_a_date_or_a_time(invoke, memory):
    import os
    import subprocess

    (memory.root / "reference" / "decisions").mkdir(parents=True, exist_ok=True)
    (memory.root / "reference/decisions/tabs.md").write_text("---\ndescription: Tabs.\n---\nTabs.\n")
    env = {**os.environ, "GIT_COMMITTER_DATE": "2030-01-02T10:00:00+00:00", "GIT_AUTHOR_DATE": "2030-01-02T10:00:00+00:00"}
    for args in (["add", "-A"], ["commit", "-qm", "docs(memory): a decision"]):
        subprocess.run(["git", *args], cwd=memory.root, env=env, check=True)
    every = json.loads(invoke("events", "--json").output)

    def since(text):
        done = invoke("events", "--since", text, "--json")
        assert done.exit_code == 0, done.output
        return [e["subject"] for e in json.loads(done.output)]

    assert since("2030-01-01") == since("2030-01-02T09:59") == ["docs(memory): a decision"]
    assert since("2030-01-02T10:01") == [] == since("2030-01-03")
    assert since("2000-01-01") == since("yesterday") == [e["subject"] for e in every]


def test_events_command_lists_them_as_text_and_json(invoke, memory):
    start = events.head(memory)
    memories.remember(memory, "Lea likes tea.")
    done = invoke("events", "--since", start)
    assert done.exit_code == 0
    [line] = done.output.splitlines()
    assert "memory.added" in line and "Lea likes tea." in line
    assert json.loads(invoke("events", "--since", "HEAD", "--json").output) == []


def test_follow_yields_each_new_commit(memory):
    steps = iter([lambda: inbox.add(memory, "first", "low"), lambda: None, lambda: inbox.add(memory, "second", "low")])

    def wait(interval):
        try:
            next(steps)()
        except StopIteration:
            raise KeyboardInterrupt from None

    seen = []
    with pytest.raises(KeyboardInterrupt):
        for event in events.follow(memory, wait=wait, interval=0):
            seen.append(event.data["text"])
    assert seen == ["first", "second"]


def test_delivery_runs_the_command_once_per_event_in_order(memory, recorder):
    command, out = recorder
    start = events.head(memory)
    inbox.add(memory, "one", "low")
    inbox.add(memory, "two", "low")
    (memory.cache / delivery.CURSOR).write_text(start)
    runs = delivery.deliver(memory, events.head(memory), command)
    assert [r["exit"] for r in runs] == [0, 0]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [l["data"]["text"] for l in lines] == ["one", "two"]
    assert [l["env"] for l in lines] == ["inbox.queued", "inbox.queued"]
    assert delivery.deliver(memory, events.head(memory), command) == [], "delivered once"


def test_a_failing_command_never_touches_the_commit(memory, capsys):
    inbox.add(memory, "one", "low")
    [run] = delivery.deliver(memory, events.head(memory), "cat >/dev/null; echo broken >&2; exit 3")
    assert run["exit"] == 3
    assert "exited 3: broken" in capsys.readouterr().err
    assert_clean(memory.root)


def test_the_command_runs_after_the_commit_with_the_event_on_stdin(memory, recorder):
    command, out = recorder
    set_command(memory, command)
    result = inbox.add(memory, "after the commit", "high")
    sha = events.head(memory)
    deadline = time.monotonic() + 30
    while "inbox.queued" not in (out.read_text() if out.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.05)   # a detached process: wait for it, time nothing
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [l["event"] for l in lines] == ["memory.initialized", "inbox.queued"], "the setting's own commit, then ours"
    line = lines[-1]
    assert (line["commit"], line["head"]) == (sha, sha)
    assert line["data"]["text"] == "after the commit" and result
    assert_clean(memory.root)


def test_an_elevation_is_read_from_its_commit(memory):
    from souveraine.identity import elevation

    kept = memories.remember(memory, "I keep my word.", identity="ada")
    start = events.head(memory)
    elevation.elevate(memory, kept["id"], "foundational", patch={"walls_add": ["I keep my word"]})
    found = events.events(memory, start)
    assert names(found) == ["identity.changed", "memory.elevated", "expression.changed"]
    elevated = found[1]
    assert (elevated.data["id"], elevated.data["tier"], elevated.path) == (kept["id"], "foundational", kept["path"])
    assert elevated.subject == f"feat(identity): elevate {kept['id'][:8]} to foundational"


def test_witnessed_elevation_then_a_later_witness(memory, witnesses):
    from souveraine.identity import elevation, witness

    first, second = witnesses
    kept = memories.remember(memory, "I never share a secret.", identity="ada")
    sha = notes.read(memory.path(kept["path"]))["content_sha256"]
    start = events.head(memory)
    elevation.elevate(memory, kept["id"], "constitutive",
                      attestations=[witness.make(first, kept["id"], "constitutive", sha)])
    elevation.attest(memory, kept["id"], [witness.make(second, kept["id"], "constitutive", sha)])
    found = [e for e in events.events(memory, start) if e.name.startswith(("memory.", "chronicle."))]
    assert names(found) == ["chronicle.entry_added", "memory.elevated", "chronicle.entry_added", "memory.attested"]
    recognition, elevated, again, attested = found
    assert (elevated.data["tier"], elevated.data["attested_by"]) == ("constitutive", [first.did])
    assert (attested.data["id"], attested.data["attested_by"]) == (kept["id"], [second.did])
    assert (recognition.data["kind"], recognition.data["identity"]) == ("recognition", "ada")
    assert recognition.data["fields"]["memory"] == kept["id"]
    assert again.data["fields"]["witnessed by"] == second.did


def test_deliveries_that_start_out_of_order_still_deliver_in_commit_order(memory, recorder):
    command, out = recorder
    inbox.add(memory, "one", "low")
    first = events.head(memory)
    delivery.begin(memory, first)
    inbox.add(memory, "two", "low")
    second = events.head(memory)
    delivery.begin(memory, second)
    assert len(delivery.deliver(memory, second, command)) == 2
    assert delivery.deliver(memory, first, command) == [], "the later delivery took it along"
    assert [json.loads(line)["data"]["text"] for line in out.read_text().splitlines()] == ["one", "two"]


def test_follow_since_starts_with_what_came_after_it(memory):
    start = events.head(memory)
    inbox.add(memory, "already there", "low")

    def wait(interval):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        seen = []
        for event in events.follow(memory, start, wait=wait):
            seen.append(event.data["text"])
    assert seen == ["already there"]
