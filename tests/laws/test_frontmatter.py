from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, write


def test_a_note_whose_frontmatter_does_not_parse_is_refused_with_its_line(memory):
    write(memory.root, "people/bob.md", "---\ndescription: Bob\ntitle: Bob: the builder\n---\n# Bob\n")
    done = commit_all(memory.root, "feat(memory): meet bob")
    assert done.returncode == 1
    assert done.stderr == ("souveraine: people/bob.md:3: frontmatter does not parse "
                           "(mapping values are not allowed here); fix the YAML\n")


def test_a_file_left_broken_before_is_not_blamed_for_an_append(memory):
    broken = DAY.replace("05", "06")
    write(memory.root, broken, "---\ntype: [journal\n---\n# Tuesday\n")
    assert commit_all(memory.root, "chore(journal): a broken day", "--no-verify").returncode == 0
    write(memory.root, broken, "\nA turn.\n", mode="a")
    done = commit_all(memory.root, "chore(journal): a turn")
    assert (done.returncode, done.stderr) == (0, "")


def test_markdown_without_frontmatter_is_fine(memory):
    write(memory.root, "domains/sailing.md", "# Sailing\n\nNo properties here.\n")
    write(memory.root, DAY, DAY_TEXT + "\n---\nnot frontmatter, a rule\n")
    assert commit_all(memory.root, "feat(memory): sailing").returncode == 0


def test_a_duplicate_property_is_refused(memory):
    write(memory.root, "people/ana.md", "---\ndescription: Ana\ntags: [friend]\ndescription: Ana B.\n---\n# Ana\n")
    done = commit_all(memory.root, "feat(memory): meet ana")
    assert done.returncode == 1
    assert done.stderr.startswith('souveraine: people/ana.md:4: frontmatter does not parse (found duplicate key "description"')
