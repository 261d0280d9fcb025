import json

import pytest

from souveraine.inference.client import InferenceError
from souveraine.store import git as store_git
from souveraine.store import journal, notes
from souveraine.tempos import archive, pressure, reflect
from tests.inference.fake_model import FakeModel, answer, status
from tests.support import assert_clean, git
from tests.tempos.conversation import configure, copy_of, filler, invoke_on, prebuilt, say

PLANTED = [
    ("user", "Hortense Vallière called about the orchard lease."),
    ("assistant", "We decided to host the orchard archive on Hetzner, not at home."),
    ("user", "The lease must be signed on 2027-03-14 at the notary in Quimper."),
    ("assistant", "I promise to send Hortense the signed contract by Friday."),
]


def planted_journal(memory, monkeypatch):
    """Three days of talk about the garden with four facts planted in the middle one."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    with memory.change("chore(journal): three days") as change:
        say(memory, "2026-11-28T09:00:00", filler(30), change=change)
        say(memory, "2026-11-29T09:00:00", filler(20) + PLANTED + filler(20, "the orchard"), change=change)
        say(memory, "2026-11-30T09:00:00", filler(30), change=change)


@pytest.fixture(scope="module")
def three_days(tmp_path_factory):
    return prebuilt(tmp_path_factory, planted_journal)


@pytest.fixture
def planted(three_days, tmp_path, monkeypatch):
    """A copy of the three days, its clock at the end of the last."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    return copy_of(three_days, tmp_path)


def journal_bytes(memory):
    return {rel: (memory.root / rel).read_bytes() for rel in journal.days(memory.root)}


def test_planted_facts_survive_the_extractive_synthesis(planted):
    memory = planted
    result = archive.run(memory, force=True)
    text = memory.read_text(result["path"])
    for sentence in ("We decided to host the orchard archive on Hetzner, not at home.",
                     "The lease must be signed on 2027-03-14 at the notary in Quimper.",
                     "I promise to send Hortense the signed contract by Friday."):
        assert sentence in text
    index = text.split("## Names\n\n", 1)[1].splitlines()[0].split(" · ")
    assert {"Hortense Vallière", "Hetzner", "Quimper"} <= set(index)
    assert result["pressure"]["after"]["tokens"] < result["pressure"]["before"]["tokens"]
    assert result["pressure"]["after"]["unsynthesized_tokens"] == 0


def test_the_journal_stays_byte_identical(planted):
    memory = planted
    before = journal_bytes(memory)
    result = archive.run(memory, force=True)
    assert journal_bytes(memory) == before
    assert git(memory.root, "show", "--name-only", "--format=", "HEAD").split() == [result["path"]]
    assert_clean(memory.root)


def test_the_synthesis_records_its_span_and_sources(planted):
    memory = planted
    result = archive.run(memory, force=True)
    last = list(journal.turns(memory.root))[-1]
    assert result["path"] == f"system/synthesized/synthesis-2026-11-30-{last.at:%H%M%S}.md"
    note = notes.read(memory.root / result["path"])
    assert (str(note["from"]), str(note["through"]), note["through_turn"], note["turns"], note["method"]) == (
        "2026-11-28", "2026-11-30", last.block_id, 104, "extractive")
    assert list(note["sources"]) == [f"[[journal/2026/11/2026-11-{d}]]" for d in (28, 29, 30)]
    for link in note["sources"]:
        assert (memory.root / (link[2:-2] + ".md")).is_file()
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "chore(archive): synthesize 104 turns through 2026-11-30"


def test_a_superseded_synthesis_moves_whole_to_the_archive(planted):
    memory = planted
    first = archive.run(memory, force=True)
    old = (memory.root / first["path"]).read_bytes()
    say(memory, "2026-11-30T21:00:00", [("user", "Octave says the pears are ripe."), ("assistant", "Then we pick them on Sunday.")])
    second = archive.run(memory, force=True)
    moved = "archive/" + first["path"].rsplit("/", 1)[1]
    assert second["moved"] == [{"from": first["path"], "to": moved}]
    assert (memory.root / moved).read_bytes() == old and not (memory.root / first["path"]).exists()
    assert git(memory.root, "show", "-M", "--name-status", "--format=", "HEAD").split() == [
        "R100", first["path"], moved, "A", second["path"]]
    text = memory.read_text(second["path"])
    assert "I promise to send Hortense the signed contract by Friday." in text       # carried from the first
    assert "Then we pick them on Sunday." in text and "Octave" in text.split("## Names")[1]   # and the new turns
    assert notes.read(memory.root / second["path"])["sources"][0] == f"[[{moved[:-3]}]]"
    assert str(notes.read(memory.root / second["path"])["from"]) == "2026-11-28"
    assert_clean(memory.root)


def test_not_due_does_nothing(memory):
    say(memory, "2026-11-30T09:00:00", filler(4))
    head = git(memory.root, "rev-parse", "HEAD")
    result = archive.run(memory)
    assert not result["archived"]
    assert result["reason"] == "not due: pressure 0.9% (archives at 70%), 4 of 100 messages"
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_due_every_interval_messages(memory):
    configure(memory, "archivist", interval=4)
    say(memory, "2026-11-30T09:00:00", filler(4))
    assert archive.due(memory)
    assert archive.run(memory)["archived"]
    assert not archive.due(memory)
    assert archive.run(memory, force=True)["reason"] == "nothing to synthesize: no messages since the last synthesis"


def test_disabled_archivist_does_nothing_even_forced(memory, invoke):
    configure(memory, "archivist", enabled=False, interval=1)
    say(memory, "2026-11-30T09:00:00", filler(4))
    head = git(memory.root, "rev-parse", "HEAD")
    assert not archive.due(memory)
    result = invoke("archive", "--force", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "archived": False, "reason": "the archivist is off ([archivist] enabled = false in souveraine.toml)"}
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_dry_run_writes_nothing_and_foresees_the_pressure(planted):
    memory, invoke = planted, invoke_on(planted)
    head = git(memory.root, "rev-parse", "HEAD")
    dry = json.loads(invoke("archive", "--dry-run", "--json").stdout)
    assert dry["dry_run"] and not dry["archived"] and "Hortense Vallière" in dry["synthesis"]
    assert git(memory.root, "rev-parse", "HEAD") == head and not (memory.root / dry["path"]).exists()
    done = archive.run(memory, force=True)
    assert memory.read_text(done["path"]) == dry["synthesis"]
    assert abs(dry["pressure"]["after"]["tokens"] - done["pressure"]["after"]["tokens"]) <= 1


def test_an_interrupted_run_leaves_the_memory_as_it_was(planted, monkeypatch):
    memory = planted
    first = archive.run(memory, force=True)
    say(memory, "2026-11-30T21:00:00", filler(2))
    head = git(memory.root, "rev-parse", "HEAD")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(store_git, "commit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        archive.run(memory, force=True)
    assert (memory.root / first["path"]).is_file()
    assert sorted(p.name for p in (memory.root / "archive").iterdir()) == [".gitkeep"]
    assert sorted(p.name for p in (memory.root / "system/synthesized").iterdir()) == [".gitkeep", first["path"].rsplit("/", 1)[1]]
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert_clean(memory.root)


def test_inside_a_callers_change_it_adds_to_that_commit(memory):
    say(memory, "2026-11-30T09:00:00", filler(4))
    with memory.change("chore(journal): persist and archive") as change:
        result = archive.run(memory, force=True, change=change)
    assert result["archived"] and "commit" not in result
    assert git(memory.root, "log", "-1", "--format=%s%n%(trailers)", "--name-only").split()[-1] == result["path"]
    assert_clean(memory.root)


def test_the_cli_reports_pressure_before_and_after(planted):
    memory, invoke = planted, invoke_on(planted)
    result = invoke("archive", "--force")
    assert result.exit_code == 0 and result.stderr == ""
    first, second = result.stdout.splitlines()
    assert first.startswith("synthesized 104 turns (2026-11-28 to 2026-11-30) into system/synthesized/synthesis-2026-11-30-")
    assert second.startswith("pressure ") and second.endswith(" of default's 200,000 tokens") and " → " in second
    assert_clean(memory.root)


MODEL_ESSENCE = """```markdown
# Essence
## Decisions
- The archive goes to Hetzner ^{b1}
## Commitments
- Send Hortense the contract by Friday ^{b3}
```"""


def test_a_configured_model_writes_lines_the_guard_keeps_and_the_dropped_facts_stay(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    blocks = say(memory, "2026-11-30T09:00:00", PLANTED)
    with FakeModel([answer(MODEL_ESSENCE.format(b1=blocks[1], b3=blocks[3]))]) as server:
        configure(memory, "inference", endpoint=server.base, model="big", archivist_model="small")
        result = archive.run(memory, force=True)
    [request] = server.requests
    assert request["json"]["model"] == "small" and request["json"]["stream"] is True
    # a few turns, a short answer: half the chunk's tokens, at least 256
    assert request["json"]["max_tokens"] == 256
    shown = request["json"]["messages"][1]["content"]
    assert f"## Monday 2026-11-30\n^{blocks[0]} user: " in shown
    assert f"\n^{blocks[2]} user: The lease must be signed" in shown
    note = notes.read(memory.root / result["path"])
    assert note["method"] == "small" and result["guard"]["kept"] == 2 and "refused" not in result
    assert f"- The archive goes to Hetzner ([[journal/2026/11/2026-11-30#^{blocks[1]}]])" in note.body
    assert f"- Send Hortense the contract by Friday ([[journal/2026/11/2026-11-30#^{blocks[3]}]])" in note.body
    # the model's lines replace the extractive lines they cover; the fact it dropped is kept
    assert "We decided to host the orchard archive" not in note.body
    assert "The lease must be signed on 2027-03-14 at the notary in Quimper." in note.body
    assert "```" not in note.body and "\n# Essence\n" not in note.body
    assert "## Names\n\nHortense Vallière · Hetzner" in note.body
    assert_clean(memory.root)


NONSENSE = """## Decisions
- The Bramley apple trees will be pruned every two years ^{b1}
- [^{b2} · 2026-11-30 09:02 · user] The lease must be signed
- ^{b2} user: The lease must be signed on 2027-03-14
- round 150: the user agreed ^{b0}
## Dates and times
- The lease is signed at 24:59 on 2027-03-14 ^{b2}
- Hortense called about the orchard lease ^t000000u0000
## People
- Hortense Vallière called about the lease
"""


def test_a_models_nonsense_is_never_committed_the_extractive_synthesis_is_and_the_inner_voice_says_why(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    blocks = say(memory, "2026-11-30T09:00:00", PLANTED)
    with FakeModel([answer(NONSENSE.format(b0=blocks[0], b1=blocks[1], b2=blocks[2]))]) as server:
        configure(memory, "inference", endpoint=server.base, model="smollm2-135m")
        result = archive.run(memory, force=True)
    note = notes.read(memory.root / result["path"])
    assert note["method"] == "extractive" and result["method"] == "extractive"
    assert result["guard"] == {"kept": 0, "refused": 7, "share": 0.0, "why": result["guard"]["why"]}
    assert "Bramley" not in note.body and "24:59" not in note.body and "round 150" not in note.body
    assert "t000000u0000" not in note.body and "[[[" not in note.body
    for sentence in ("We decided to host the orchard archive on Hetzner, not at home.",
                     "The lease must be signed on 2027-03-14 at the notary in Quimper.",
                     "I promise to send Hortense the signed contract by Friday."):
        assert sentence in note.body
    voice = memory.read_text("system/metacognition/subconscious.md").splitlines()
    said = [line for line in voice if "smollm2-135m" in line]
    assert len(said) == 1 and said[0].startswith("[2026-11-30 20:00] [URGENCY: medium] — The archivist's model "
                                                  "smollm2-135m wrote an essence the guard refused (7 of 7 lines: ")
    assert said[0].endswith("); the extractive synthesis was kept.")
    assert git(memory.root, "show", "--name-only", "--format=", "HEAD").split() == [
        "system/metacognition/subconscious.md", result["path"]]
    assert_clean(memory.root)


def test_a_failing_model_fails_loudly_and_writes_nothing(memory, monkeypatch, invoke):
    say(memory, "2026-11-30T09:00:00", PLANTED)
    head = git(memory.root, "rev-parse", "HEAD")
    with FakeModel([status(500, "CUDA out of memory")]) as server:
        configure(memory, "inference", endpoint=server.base, model="tiny", retries=0)
        head = git(memory.root, "rev-parse", "HEAD")
        with pytest.raises(InferenceError):
            archive.run(memory, force=True)
        result = invoke("archive", "--force")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"souveraine: the model endpoint {server.base} failed with HTTP 500: ")
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert invoke("archive", "--force", "--extractive").exit_code == 0
    assert_clean(memory.root)


def test_the_synthesis_covers_a_witness_that_follows_the_last_message(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T09:00:00", PLANTED)
    witness = reflect.run(memory, force=True)
    result = archive.run(memory, force=True)
    assert (result["turns"], result["through_turn"]) == (4, witness["block_id"])
    assert result["path"] == "system/synthesized/synthesis-2026-11-30-150000.md"
    assert pressure.measure(memory).unsynthesized_tokens == 0
