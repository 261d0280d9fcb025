import pytest

from souveraine import resources
from souveraine.store import notes

SKILLS = ("souveraine", "triage", "workflow")


def test_init_installs_the_three_skills(memory):
    installed = sorted(p.name for p in (memory.root / ".skills").iterdir() if p.is_dir())
    assert set(SKILLS) <= set(installed)
    for name in SKILLS:
        copied = memory.root / ".skills" / name / "SKILL.md"
        assert copied.read_bytes() == (resources.path("skills") / name / "SKILL.md").read_bytes()


@pytest.mark.parametrize("name", SKILLS)
def test_each_skill_is_in_the_agent_skills_format(name):
    note = notes.read(resources.path("skills") / name / "SKILL.md")
    assert note["name"] == name
    assert 20 <= len(note["description"]) <= 1024
    assert note.body.lstrip().startswith("# ")


def test_the_souveraine_skill_says_when_to_call_each_command():
    body = (resources.path("skills") / "souveraine" / "SKILL.md").read_text(encoding="utf-8")
    for command in ("persist", "surface", "wake", "recall", "remember", "elevate", "fork", "triage", "state", "unit"):
        assert f"souveraine {command}" in body, command
