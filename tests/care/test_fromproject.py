import json

import pytest

from souveraine.care import doctor, fromproject
from souveraine.store.memory import Memory
from tests.support import assert_clean, git

FILES = {
    "pyproject.toml": '[project]\nname = "tidy"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "README.md": "# Tidy\n\nInstall it:\n\n```\npip install tidy\n```\n\nTidy sorts your downloads folder by kind and date.\n",
    "CONTRIBUTING.md": "# Contributing\n\nOpen an issue first.\n",
    "tidy/__init__.py": "",
    "tidy/sort.py": "def sort(paths):\n    return sorted(paths)\n",
    "tidy/cli.py": "import sys\n",
    "tests/test_sort.py": "def test_sort():\n    assert True\n",
    "docs/usage.md": "# Usage\n",
    "scripts/release.sh": "#!/bin/sh\n",
}
CONVENTIONAL = ["feat(sort): sort by kind", "fix(cli): exit 2 on a bad flag", "test(sort): cover empty folders",
                "docs: usage page", "feat(cli): a --dry-run flag", "chore: pin pytest"]


def make_repo(root, subjects):
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for n, subject in enumerate(subjects):
        for rel, text in list(FILES.items())[n::len(subjects)] if n < len(subjects) - 1 else list(FILES.items())[n:]:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        (root / "CHANGES").write_text(f"{n}\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", subject)
    return root


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "tidy-repo", CONVENTIONAL)


def test_scan_names_languages_layout_and_commit_conventions(repo):
    found = fromproject.scan(repo)
    assert found["name"] == "tidy"
    assert found["summary"] == "Tidy sorts your downloads folder by kind and date."
    assert found["languages"][0] == {"language": "Python", "files": 4, "share": 0.8}
    assert found["languages"][1]["language"] == "Shell"
    assert {"folder": "tidy/", "files": 3, "role": ""} in found["layout"]
    assert {"folder": "tests/", "files": 1, "role": "tests"} in found["layout"]
    assert found["tests"] == {"folder": "tests/", "framework": "pytest"}
    assert found["commits"]["style"] == "conventional"
    assert found["commits"]["types"] == {"feat": 2, "chore": 1, "docs": 1, "fix": 1, "test": 1}
    assert set(found["commits"]["scopes"]) == {"sort", "cli"}


def test_a_free_form_history_is_named_as_such(tmp_path):
    found = fromproject.scan(make_repo(tmp_path / "loose", ["Initial commit", "Added stuff", "WIP", "fix: typo"]))
    assert found["commits"]["style"] == "free-form" and found["commits"]["conventional"] == 1


def test_init_from_project_describes_it_in_a_second_commit(repo, tmp_path, runner):
    from souveraine.cli import cli

    result = runner.invoke(cli, ["init", str(tmp_path / "mem"), "--from-project", str(repo), "--json"])
    assert result.exit_code == 0, result.output
    memory = tmp_path / "mem"
    assert git(memory, "log", "--format=%s").splitlines() == ["feat(init): describe project from tidy", "feat(init): bootstrap memory"]
    assert_clean(memory)
    conventions = (memory / "system/project/conventions.md").read_text()
    assert "- Commits follow Conventional Commits (`type(scope): what changed`): 6 of the last 6." in conventions
    assert "Types used: feat (2), chore (1), docs (1), fix (1), test (1). Scopes: " in conventions
    assert "- Tests live in `tests/` and run with pytest." in conventions
    assert conventions.startswith("---\ntype: project\n")   # the template's properties are kept
    architecture = (memory / "system/project/architecture.md").read_text()
    assert "tidy: Tidy sorts your downloads folder by kind and date." in architecture
    assert "- Languages: Python (4 files, 80%), Shell (1 file, 20%)" in architecture
    assert "Python packaging (pyproject.toml)" in architecture and "CONTRIBUTING.md" in architecture
    assert doctor.doctor(Memory(memory)) == []
    assert json.loads(result.stdout)["from_project"]["paths"] == ["system/project/architecture.md", "system/project/conventions.md"]


def test_a_second_scan_replaces_the_first(repo, memory):
    fromproject.write(memory, fromproject.scan(repo))
    (repo / "lib.go").write_text("package main\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "feat: go")
    fromproject.write(memory, fromproject.scan(repo))
    text = memory.read_text("system/project/architecture.md")
    assert text.count(fromproject.SECTION) == 1 and "Go (1 file," in text
    assert "The shape of the project" in text   # what was there before is kept


def test_a_missing_repository_is_refused_before_init(tmp_path, runner):
    from souveraine.cli import cli

    result = runner.invoke(cli, ["init", str(tmp_path / "mem"), "--from-project", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.stderr == f"souveraine: {tmp_path / 'nope'} is not a folder; give the path of a code repository\n"
    assert not (tmp_path / "mem").exists()


def test_the_summary_is_the_readme_first_paragraph_never_a_code_line(tmp_path):
    root = tmp_path / "photos"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# Photos\n\n```sh\npip install photos\n\nphotos --sort everything tonight\n```\n\n"
                                    "Photos\n======\n\nPhotos sorts your pictures by the day they were taken.\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feat: first")
    assert fromproject.scan(root)["summary"] == "Photos sorts your pictures by the day they were taken."


def test_a_rescan_replaces_the_whole_section_even_past_a_comment_in_its_code(memory, repo):
    path = "system/project/architecture.md"
    with memory.change("docs(project): how to build, by hand") as change:
        change.write(path, "---\ndescription: The project.\n---\n# Architecture\n\n" + fromproject.SECTION +
                     "\n\nOld words.\n\n```sh\n# build it\nmake all\n```\n\n## Mine\n\nKept.\n")
    fromproject.write(memory, fromproject.scan(repo))
    text = memory.read_text(path)
    assert "Old words." not in text and "make all" not in text and text.count("```") == 0
    assert "## Mine\n\nKept." in text and text.count(fromproject.SECTION) == 1
