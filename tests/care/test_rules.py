import pytest

from souveraine.care import rules
from souveraine.errors import UsageError
from tests.support import assert_clean, git


@pytest.mark.parametrize("text,target", [
    ("Ada prefers short answers without emojis", "system/human/prefs/communication.md"),
    ("Call me Ada, not Adelaide", "system/human/prefs/communication.md"),
    ("Never force-push to main", "system/project/do-nots.md"),
    ("Don't run the migrations on a Friday", "system/project/do-nots.md"),
    ("Commit messages are in English and in the imperative", "system/project/conventions.md"),
    ("We use tabs in the Makefile", "system/project/conventions.md"),
    ("The CI runners have two cores, so the suite must stay fast", "system/project/learnings.md"),
    ("Never push on Fridays", "system/project/do-nots.md"),
    ("Never schedule meetings before 10am", "system/human/prefs/workflow.md"),
    ("Ada is really into birdwatching these days", "system/human/prefs/topics.md"),
    ("My sister is Lea, not Leah", "system/human/identity.md"),
    ("Put recipes in memories/recipes, one memory per recipe", "system/conventions.md"),
])
def test_the_target_is_guessed_from_the_words(text, target):
    assert rules.target_for(text) == target


def test_a_rule_is_appended_as_one_dated_line_in_one_commit(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-03-02T10:00:00+01:00")
    before = memory.read_text("system/human/prefs/communication.md")
    result = rules.remember_to(memory, "Ada prefers  short answers")
    assert result == {"path": "system/human/prefs/communication.md", "kind": "rule", "line": "- Ada prefers short answers (2026-03-02)",
                      "changed": True, "commit": git(memory.root, "rev-parse", "HEAD").strip()}
    assert memory.read_text("system/human/prefs/communication.md") == before + "\n- Ada prefers short answers (2026-03-02)\n"
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "feat(memory): rule in system/human/prefs/communication.md: Ada prefers short answers"
    rules.remember_to(memory, "Ada likes tea")
    assert memory.read_text("system/human/prefs/communication.md").endswith("(2026-03-02)\n- Ada likes tea (2026-03-02)\n")
    assert_clean(memory.root)


def test_a_correction_commits_as_a_fix(memory):
    result = rules.remember_to(memory, "The deploy script is actually in tools/, not scripts/", "system/project/learnings.md")
    assert result["kind"] == "correction"
    assert git(memory.root, "log", "-1", "--format=%s").strip().startswith("fix(memory): correct system/project/learnings.md: ")


def test_the_same_rule_twice_changes_nothing(memory):
    rules.remember_to(memory, "Never push on Fridays")
    head = git(memory.root, "rev-parse", "HEAD")
    assert rules.remember_to(memory, "Never push on Fridays")["changed"] is False
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_a_new_target_file_is_made_with_a_description(memory):
    rules.remember_to(memory, "Review needs two approvals", "reference/decisions/reviews", kind="rule")
    text = memory.read_text("reference/decisions/reviews.md")
    assert text.startswith("---\ndescription: Reviews — durable rules and corrections, one line each, newest last.\n")
    assert "# Reviews\n\n- Review needs two approvals (" in text


@pytest.mark.parametrize("to,words", [
    ("journal/2026/03/2026-03-02.md", "is not a place for rules"),
    ("memories/x.md", "is not a place for rules"),
    ("../outside.md", "is not a path inside the memory"),
    ("elsewhere/notes.md", "is outside the memory's layout"),
])
def test_rules_go_only_where_rules_belong(memory, to, words):
    with pytest.raises(UsageError, match=words):
        rules.remember_to(memory, "Something durable", to)
    assert_clean(memory.root)


def test_remember_to_through_the_cli(memory, invoke):
    from tests.support import assert_clean

    result = invoke("remember", "I prefer answers in French", "--to", "auto", "--json")
    assert result.exit_code == 0, result.output
    assert '"path": "system/human/prefs/communication.md"' in result.stdout
    assert "- I prefer answers in French (" in memory.read_text("system/human/prefs/communication.md")
    again = invoke("remember", "I prefer answers in French", "--to", "system/human/prefs/communication.md")
    assert again.stdout.strip() == "system/human/prefs/communication.md already says so"
    assert_clean(memory.root)
