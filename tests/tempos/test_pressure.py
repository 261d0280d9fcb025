import math

import pytest

from souveraine.errors import ConfigError
from souveraine.tempos import archive, pressure
from tests.tempos.conversation import configure, filler, say

MODELS = """
[models.big]
context_limit = 200000
chars_per_token = 4.0

[models.small]
context_limit = 8000
chars_per_token = 2.0
archivist_threshold = 0.5
archivist_interval = 10
"""


def with_models(memory):
    text = memory.read_text("souveraine.toml").replace("[models.default]", MODELS + "\n[models.default]")
    with memory.change("chore(memory): two models") as change:
        change.write("souveraine.toml", text)
    memory.__dict__.pop("config", None)


def system_bytes(memory):
    return sum(p.stat().st_size for p in (memory.root / "system").rglob("*.md"))


def test_pressure_is_computed_per_model_from_the_config(memory):
    with_models(memory)
    say(memory, "2026-11-30T14:00:00", filler(4))
    journal_bytes = (memory.root / "journal/2026/11/2026-11-30.md").stat().st_size
    voice = (memory.root / "system/metacognition/subconscious.md").stat().st_size
    pinned = system_bytes(memory) - voice   # the inner voice has no lines yet: only its tail is pinned
    big, small = pressure.measure(memory, "big"), pressure.measure(memory, "small")
    assert (big.model, big.pinned_tokens, big.unsynthesized_tokens) == ("big", math.ceil(pinned / 4), math.ceil(journal_bytes / 4))
    assert (small.pinned_tokens, small.unsynthesized_tokens) == (math.ceil(pinned / 2), math.ceil(journal_bytes / 2))
    assert small.ratio == pytest.approx(small.tokens / 8000) and big.ratio == pytest.approx(big.tokens / 200000)
    assert (big.threshold, big.interval) == (0.7, 100)
    assert (small.threshold, small.interval) == (0.5, 10)   # the model's, lower than [archivist]'s
    assert big.messages == small.messages == 4
    assert pressure.measure(memory).model == "default"


def test_archivist_settings_apply_when_they_come_first(memory):
    with_models(memory)
    configure(memory, "archivist", threshold=0.3, interval=3)
    assert (pressure.measure(memory, "small").threshold, pressure.measure(memory, "small").interval) == (0.3, 3)


def test_an_unknown_model_is_a_config_error(memory, invoke):
    with pytest.raises(ConfigError, match=r"no model 'nope' in .*souveraine.toml \(known: default\); add a \[models.nope\] table"):
        pressure.measure(memory, "nope")
    result = invoke("archive", "--model", "nope")
    assert result.exit_code == 3 and result.stderr.startswith("souveraine: no model 'nope' in ")


def test_due_when_over_the_threshold_or_after_the_interval(memory):
    with_models(memory)
    say(memory, "2026-11-30T14:00:00", filler(4))
    assert not pressure.measure(memory, "big").due
    configure(memory, "archivist", interval=4)
    assert pressure.measure(memory, "big").due and archive.due(memory, "big")
    configure(memory, "archivist", interval=100, threshold=0.001)
    assert pressure.measure(memory, "big").over and archive.due(memory, "big")
    configure(memory, "archivist", enabled=False)
    assert pressure.measure(memory, "big").due and not archive.due(memory, "big")


def test_nothing_to_compress_is_never_due(memory):
    configure(memory, "archivist", threshold=0.0001)
    assert pressure.measure(memory).over and not pressure.measure(memory).due


def test_only_the_journal_after_the_synthesis_turn_is_pending(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", filler(4))
    archive.run(memory, force=True)
    assert pressure.measure(memory).unsynthesized_tokens == 0
    blocks = say(memory, "2026-11-30T16:00:00", [("user", "One more thing about the shed."), ("assistant", "Yes.")])
    data = (memory.root / "journal/2026/11/2026-11-30.md").read_bytes()
    tail = data[data.index(b"\n## 16:00:00"):]
    later = pressure.measure(memory)
    assert later.unsynthesized_tokens == math.ceil(len(tail) / 4) and later.messages == 2
    assert blocks[1].encode() in tail


def test_the_inner_voice_weighs_only_its_pinned_tail(memory):
    configure(memory, "wake", inner_voice_lines=3)
    voice = "system/metacognition/subconscious.md"
    line = "[2026-11-30 14:00] [URGENCY: low] — the shed needs sweeping\n"
    with memory.change("chore(memory): inner voice") as change:
        change.append(voice, line * 3)
    three = pressure.pinned_bytes(memory)
    with memory.change("chore(memory): inner voice") as change:
        change.append(voice, line * 40)
    assert pressure.pinned_bytes(memory) == three
    header = len(memory.read_text(voice).encode()) - 43 * len(line.encode())
    assert three == system_bytes(memory) - header - 40 * len(line.encode())


def test_constitutive_memories_are_pinned_and_episodic_ones_are_not(memory):
    # A constitutive memory must verify (the laws refuse a hand-made one): elevate one, witnessed.
    from souveraine.identity import covenants, elevation, keys, memories, witness

    other = keys.Keypair.generate()
    covenants.add(memory, did=other.did, keys={other.key_id: other.public},
                  project_id="0f0f0f0f-0000-4000-8000-000000000000", handle="wit")
    before = pressure.pinned_bytes(memory)
    memories.remember(memory, "A passing thought.")
    root = memories.remember(memory, "Who I am.")
    assert pressure.pinned_bytes(memory) == before
    sha = memories.load(memory, root["id"])[1]["content_sha256"]
    elevation.elevate(memory, root["id"], "constitutive", attestations=[witness.make(other, root["id"], "constitutive", sha)])
    assert pressure.pinned_bytes(memory) == before + (memory.root / root["path"]).stat().st_size
