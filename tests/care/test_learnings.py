"""learnings: what the unit reports keep saying becomes a line of system/project/learnings.md."""

import json

from souveraine.care import learnings
from souveraine.forks import unit
from souveraine.store import layout
from tests.support import assert_clean, git


def finish(memory, name, develop, review, summary, blocked=""):
    """A whole unit through the real workflow, ending in its report."""
    unit.start(memory, name, goal=f"Work on {name}.")
    unit.phase(memory, "ORIENT")
    unit.phase(memory, "DEVELOP", output=f"Orientation: {name}.")
    unit.phase(memory, "REVIEW", output=develop, files=[f"src/{name}.py"])
    if blocked:
        return unit.report(memory, summary=summary, blocked=blocked)
    unit.phase(memory, "UPDATE-DOCS", output=review)
    unit.phase(memory, "REPORT", output="Docs updated.")
    return unit.report(memory, summary=summary)


def test_recurring_points_become_lessons_citing_their_reports(memory, invoke):
    finish(memory, "login", "Passkeys added. The clock test fails when run after midnight UTC.",
           "Tests pass.", "Passkeys work.")
    finish(memory, "search", "Ranking tuned on the dev half only.",
           "The clock test failed again after midnight UTC; rerun it in the morning.", "Search is faster.")
    finish(memory, "export", "CSV export added.", "Tests pass.", "Export works.",
           blocked="The CSV writer needs a quoting convention nobody has decided.")
    before = memory.read_text(layout.PROJECT_LEARNINGS)

    done = json.loads(invoke("learnings", "--json").stdout)

    assert done["reports"] == 3 and done["recurring"] == 1
    [line] = done["added"]
    assert line.startswith("- The clock test fails when run after midnight UTC. — ") or \
        line.startswith("- The clock test failed again after midnight UTC; rerun it in the morning. — ")
    assert "[[reference/reports/login|login]], [[reference/reports/search|search]]" in line
    text = memory.read_text(layout.PROJECT_LEARNINGS)
    assert text.startswith(before.rstrip("\n")) and text.endswith(f"\n## From the reports\n\n{line}\n")
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(memory): 1 learning from the unit reports"
    assert_clean(memory.root)


def test_a_second_run_adds_only_what_is_new(memory, invoke):
    for name in ("a", "b"):
        finish(memory, name, "The fixture server leaks a port between tests.", "Docs fine.", f"Unit {name} done.")
    assert len(learnings.consolidate(memory)["added"]) == 1
    head = git(memory.root, "rev-parse", "HEAD")
    again = learnings.consolidate(memory)
    assert again["added"] == [] and again["commit"] is None and git(memory.root, "rev-parse", "HEAD") == head
    finish(memory, "c", "Migrations must run before the seed data loads.", "Docs fine.", "Unit c done.")
    finish(memory, "d", "Run the migrations before loading seed data.", "Docs fine.", "Unit d done.")
    [line] = learnings.consolidate(memory)["added"]
    assert "[[reference/reports/c|c]], [[reference/reports/d|d]]" in line
    assert memory.read_text(layout.PROJECT_LEARNINGS).count("## From the reports") == 1


def test_files_touched_and_one_off_points_are_not_lessons(memory):
    finish(memory, "one", "Added the exporter.", "Docs fine.", "One is done.")
    finish(memory, "two", "Added the importer.", "Docs fine.", "Two is done.")
    assert learnings.consolidate(memory) == {"reports": 2, "recurring": 0, "added": [], "commit": None}
    finish(memory, "three", "Added the exporter.", "Docs fine.", "Three is done.")
    assert learnings.consolidate(memory, min_reports=3)["added"] == []


def test_no_reports_no_commit(memory, invoke):
    result = invoke("learnings")
    assert (result.exit_code, result.stdout) == (0, "")


def test_code_in_a_report_is_no_lesson(memory):
    code = "\n\n```text\nThe staging database must be reset before every release\n```\n"
    finish(memory, "one", "Added the exporter." + code, "Docs fine.", "One is done.")
    finish(memory, "two", "Added the importer." + code, "Docs fine.", "Two is done.")
    assert learnings.consolidate(memory)["added"] == []
