"""A lived-in memory for wake, made once per module: identity, witnessed memories, private ones,
never-share rules, an inner voice, an inbox and a synthesis. Wake only reads, so tests share it."""

import json
import uuid
from datetime import datetime
from pathlib import Path

import pytest

from tests.support import isolated_session
from click.testing import CliRunner

from souveraine.store.memory import Memory

WITNESS_SEED = bytes(range(32))
PRIVATE_TEXT = "Bea told me about her diagnosis in confidence."
SECRET_PHRASE = "the blue door"
SECRET_FILE = "system/human/secret.md"
CONSTITUTIVE_TEXT = "I stayed with Bea the night the build broke, and she stayed with me."
TOML_EXTRA = """
never_share = ["The Blue Door", "system/human/secret.md"]

[wake]
inner_voice_lines = 5
recent_items = 3

[models.small]
context_limit = 8000
wake_share = 0.5
chars_per_token = 4.0
"""


def at(day: str) -> datetime:
    return datetime.fromisoformat(f"{day}T10:00:00+00:00")


def build(root: Path) -> Memory:
    from souveraine.bootstrap import init
    from souveraine.identity import covenants, elevation, keys, memories, witness

    memory = Memory(init(root, identity="ada").root)
    outsider = keys.Keypair(WITNESS_SEED)
    covenants.add(memory, did=outsider.did, keys={outsider.key_id: outsider.public},
                  project_id=str(uuid.uuid4()), handle="wit")

    def elevate(text, tier, day, identity="ada", **patch):
        made = memories.remember(memory, text, identity=identity, created=at(day))
        note = memories.load(memory, made["id"])[1]
        signed = [witness.make(outsider, made["id"], tier, note["content_sha256"])] if tier == "constitutive" else []
        elevation.elevate(memory, made["id"], tier, patch=patch, attestations=signed)

    elevate("Short answers serve Bea best.", "foundational", "2026-01-03", register_append="brief and warm")
    elevate(CONSTITUTIVE_TEXT, "constitutive", "2026-01-05", walls_add=["I do not leave a friend alone"])
    elevate("Check the tests before saying done.", "foundational", "2026-01-07", walls_add=["No 'done' without tests"])
    elevate("This project keeps its laws in git.", "foundational", "2026-01-08", identity=None)
    for day, text in (("2026-02-01", "We chose SQLite for the index."), ("2026-02-03", "Bea prefers mornings."),
                      ("2026-02-05", "The release slipped a week."), ("2026-02-06", "Meet Bea at the blue door at noon.")):
        memories.remember(memory, text, created=at(day))
    memories.remember(memory, PRIVATE_TEXT, created=at("2026-02-07"), visibility="private")
    with memory.change("chore(memory): a lived-in memory for wake's tests") as change:
        toml = memory.read_text("souveraine.toml").replace("never_share = []\n", "")
        change.write("souveraine.toml", toml.replace("[privacy]\n", "[privacy]" + TOML_EXTRA, 1))
        change.write(SECRET_FILE, "---\ntype: human\ndescription: Where Bea lives.\n---\n# Secret\n\nBea lives at 3 Elm Street.\n")
        prefs = memory.read_text("system/human/prefs/communication.md")
        change.write("system/human/prefs/communication.md", prefs + "\n- Bea likes tea.\n- Ring at the blue door, never the bell.\n")
        voice = memory.read_text("system/metacognition/subconscious.md")
        lines = [f"[2026-02-0{n} 09:00] [URGENCY: low] — thought number {n}" for n in range(1, 8)]
        lines.insert(5, "[2026-02-06 09:30] [URGENCY: medium] — remember the blue door")
        change.write("system/metacognition/subconscious.md", voice + "\n".join(lines) + "\n")
        change.write("inbox/pending.md", memory.read_text("inbox/pending.md").rstrip("\n") + "\n\n"
                     "- [2026-02-07 10:00] [URGENCY: low] Tidy the notes folder ^i000001\n"
                     "- [2026-02-07 10:05] [URGENCY: medium] Reply to Bea about the release ^i000002\n")
        change.write("system/synthesized/2026-02-07-synthesis.md",
                     "---\ntype: synthesis\nthrough: 2026-02-07\ndescription: The essence so far.\n---\n"
                     "# Synthesis through 2026-02-07\n\n## Essence\n\n- The index lives in SQLite.\n")
    return memory


@pytest.fixture(scope="module")
def lived(tmp_path_factory):
    base = tmp_path_factory.mktemp("wake")
    with isolated_session(tmp_path_factory):
        return build(base / "lived")


@pytest.fixture
def wake(lived):
    """Run ``souveraine wake`` on the lived-in memory: ``wake("--bandwidth", "low")`` → the result."""

    def run(*args, code=0, root=None):
        from souveraine.cli import cli

        result = CliRunner().invoke(cli, ["--memory", str(root or lived.root), "wake", *args], catch_exceptions=False)
        assert code is None or result.exit_code == code, (result.stdout, result.stderr)
        return result

    def fitted(budget):
        """The JSON wake at this budget, or None when it is refused."""
        result = run("--budget", str(budget), "--json", code=None)
        return json.loads(result.stdout) if result.exit_code == 0 else None

    run.json = lambda *args: json.loads(run(*args, "--json").stdout)
    run.fitted = fitted
    return run
