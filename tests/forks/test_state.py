import json

import pytest

from souveraine.errors import Refused, UsageError
from souveraine.forks import state
from souveraine.store import notes
from tests.support import assert_clean, git, souveraine


def show(memory_root) -> dict:
    done = souveraine("--memory", str(memory_root), "state", "show", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_files_touched_thread_across_phases_and_survive_a_fresh_process(memory):
    root = str(memory.root)
    steps = [
        ("--phase", "ORIENT", "--unit", "login", "--files", "src/auth.py"),
        ("--phase", "develop", "--files", "src/auth.py,tests/test_auth.py", "--files", "docs/AUTH.md"),
        ("--phase", "REVIEW"),
    ]
    for step in steps:
        done = souveraine("--memory", root, "state", "set", *step)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert_clean(memory.root)
    assert show(memory.root) == {"phase": "REVIEW", "unit": "login", "retries": 0,
                                 "files_touched": ["src/auth.py", "tests/test_auth.py", "docs/AUTH.md"]}
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "chore(state): phase REVIEW"
    bare = souveraine("--memory", root, "state")
    assert bare.stdout.splitlines()[:3] == ["phase  REVIEW", "unit   login", "files  src/auth.py"]


def test_a_new_unit_starts_with_no_files(memory, invoke):
    invoke("state", "set", "--unit", "one", "--files", "a.py")
    invoke("state", "set", "--unit", "two", "--files", "b.py")
    assert state.read(memory).files_touched == ["b.py"]
    invoke("state", "set", "--files", "c.py", "--replace")
    assert state.read(memory).to_dict() == {"phase": "idle", "unit": "two", "files_touched": ["c.py"], "retries": 0}


def test_phases_are_validated(memory, invoke):
    done = invoke("state", "set", "--phase", "CODING")
    assert done.exit_code == 2
    assert done.output.strip() == ("souveraine: 'CODING' is not a phase; use one of: "
                                   "idle, INIT, ORIENT, DEVELOP, REVIEW, UPDATE-DOCS, REPORT")
    assert [state.phase_name(p) for p in ("update_docs", "Idle", "report")] == ["UPDATE-DOCS", "idle", "REPORT"]
    assert_clean(memory.root)


def test_state_holds_paths_never_content(memory, invoke):
    done = invoke("state", "set", "--files", "def f():\n    return 1")
    assert done.exit_code == 2 and "files_touched holds paths only, never content" in done.output
    with pytest.raises(UsageError):
        state.clean_paths(["x" * 400])
    with pytest.raises(Refused, match="at most 200 paths"):
        state.threaded(state.State(unit="u"), files=[f"f{i}.py" for i in range(201)])
    invoke("state", "set", "--phase", "DEVELOP", "--unit", "u", "--files", "a.py")
    note = notes.read(memory.path("system/state.md"))
    assert list(note.meta) == ["type", "phase", "unit", "files_touched", "description", "tags"]
    assert len(memory.read_text("system/state.md")) < 600
    assert_clean(memory.root)


def test_unit_names_are_checked(memory, invoke):
    done = invoke("state", "set", "--unit", "../escape")
    assert done.exit_code == 2 and "is not a unit name" in done.output
