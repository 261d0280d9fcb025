import json

import pytest

from souveraine.care import doctor
from tests.support import assert_clean, git


def found(findings, check, path):
    return [f for f in findings if f.check == check and f.path == path]


@pytest.mark.parametrize("check,path,severity", [
    ("frontmatter", "domains/broken.md", "error"),
    ("description", "domains/cooking.md", "warning"),
    ("dumping-ground", "domains/everything.md", "warning"),
    ("dumping-ground", "reference/huge.md", "warning"),
    ("orphan", "people/carol.md", "warning"),
    ("system-budget", "system/", "warning"),
    ("volatile-system", "system/human/prefs/communication.md", "warning"),
    ("people-file", "people.md", "warning"),
    ("workflow-in-system", "system/project/conventions.md", "warning"),
    ("stale-synthesis", "system/synthesized/essence.md", "warning"),
    ("hooks", ".git/hooks", "error"),
    ("skill", ".skills/souveraine/SKILL.md", "warning"),
])
def test_doctor_finds_each_planted_problem(degraded_findings, check, path, severity):
    hits = found(degraded_findings, check, path)
    assert len(hits) == 1, [f.to_dict() for f in degraded_findings]
    assert hits[0].severity == severity
    assert hits[0].why and hits[0].fix


def test_doctor_reports_broken_ambiguous_and_moved_links_without_guessing(degraded_findings):
    by_link = {f.data["link"]: f for f in degraded_findings if f.path == "domains/cooking.md" and "link" in f.data}
    assert by_link["[[nowhere]]"].check == "broken-link" and by_link["[[nowhere]]"].severity == "error"
    assert not by_link["[[nowhere]]"].fixable
    assert by_link["[[notes]]"].check == "ambiguous-link"
    assert "domains/notes.md or reference/notes.md" in by_link["[[notes]]"].why
    assert not by_link["[[notes]]"].fixable
    assert "no heading 'No such heading'" in by_link["[[cooking#No such heading]]"].why
    moved = by_link["[[people/old/bob|Bob]]"]
    assert moved.fixable and moved.data["target"] == "people/bob.md"


def test_a_fresh_memory_has_no_findings(memory, invoke):
    assert doctor.doctor(memory) == []
    result = invoke("doctor", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []
    assert invoke("doctor").stdout == f"healthy: {len(doctor.CHECKS)} checks, no findings\n"


def test_doctor_exits_1_while_an_error_remains(degraded, invoke):
    result = invoke("doctor", memory_root=degraded.root)
    assert result.exit_code == 1
    assert "error   .git/hooks: commit-msg not installed" in result.stdout
    assert "fix: reinstall them" in result.stdout
    assert result.stdout.splitlines()[-1].endswith(f"from {len(doctor.CHECKS)} checks")


def test_fix_mends_the_safe_findings_in_one_commit_and_doctor_is_clean_of_them(degraded, invoke):
    before = git(degraded.root, "rev-list", "--count", "HEAD")
    result = invoke("doctor", "--fix", "--json", memory_root=degraded.root)
    assert int(git(degraded.root, "rev-list", "--count", "HEAD")) == int(before) + 1
    subject = git(degraded.root, "log", "-1", "--format=%s").strip()
    assert subject == ("fix(memory): doctor reinstalls the hooks, restores 1 skill, fills 1 description, "
                       "mends 1 link, indexes 2 people")
    assert_clean(degraded.root)
    remaining = json.loads(result.stdout)
    assert not [f for f in remaining if f["fixable"]]
    assert {f["check"] for f in remaining} >= {"frontmatter", "broken-link", "ambiguous-link"}
    assert result.exit_code == 1   # '[[nowhere]]' and the broken frontmatter need a person
    again = doctor.doctor(degraded)
    assert not found(again, "hooks", ".git/hooks") and not found(again, "skill", ".skills/souveraine/SKILL.md")
    assert not found(again, "description", "domains/cooking.md") and not found(again, "orphan", "people/carol.md")
    cooking = (degraded.root / "domains/cooking.md").read_text()
    assert "[[people/bob|Bob]]" in cooking and "description: What I cook on weekdays, simply." in cooking
    index = (degraded.root / "people/_index.md").read_text()
    assert "- [[people/carol|Carol]]" in index and "- [[people/bob|Bob]]" in index


def test_fix_on_a_healthy_memory_commits_nothing(memory, invoke):
    head = git(memory.root, "rev-parse", "HEAD")
    result = invoke("doctor", "--fix")
    assert result.exit_code == 0 and result.stdout == f"healthy: {len(doctor.CHECKS)} checks, no findings\n"
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_a_how_to_comment_in_a_system_note_code_is_no_workflow(memory):
    path = "system/project/architecture.md"
    with memory.change("docs(project): how to build") as change:
        change.write(path, "---\ndescription: The build.\n---\n# Build\n\nMake builds everything.\n\n"
                           "```sh\n# how to build\nmake all\n# Step 1 then step 2\n```\n")
    assert [f for f in doctor.doctor(memory) if f.check == "workflow-in-system"] == []
    with memory.change("docs(project): the steps, in prose") as change:
        change.write(path, "---\ndescription: The build.\n---\n# Build\n\nHow to build\n------------\n\nMake.\n")
    assert [f.path for f in doctor.doctor(memory) if f.check == "workflow-in-system"] == [path]
