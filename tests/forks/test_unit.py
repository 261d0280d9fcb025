import json

from souveraine.forks import state
from souveraine.store import notes
from tests.support import assert_clean, git


def run(invoke, *args):
    done = invoke(*args)
    assert done.exit_code == 0, done.output
    return done


def test_six_phases_leave_their_outputs_and_an_append_only_report(memory, invoke):
    run(invoke, "unit", "start", "login", "--goal", "Users sign in with a passkey.")
    run(invoke, "unit", "phase", "ORIENT", "--files", "src/auth.py")
    run(invoke, "unit", "phase", "DEVELOP", "--output", "auth.py holds the session logic.")
    run(invoke, "unit", "phase", "REVIEW", "--output", "Added passkey login.", "--files", "src/passkey.py")
    run(invoke, "unit", "phase", "UPDATE-DOCS", "--output", "One naming nit, fixed.")
    assert state.read(memory).to_dict() == {"phase": "UPDATE-DOCS", "unit": "login",
                                            "files_touched": ["src/auth.py", "src/passkey.py"], "retries": 0}
    run(invoke, "unit", "phase", "REPORT", "--output", "docs/AUTH.md describes passkeys.")
    done = run(invoke, "unit", "report", "--summary", "Passkeys work.")
    assert done.stdout.strip() == "reference/reports/login.md"

    work = memory.root / "reference" / "work" / "login"
    assert sorted(p.name for p in work.iterdir()) == ["develop.md", "docs-changes.md", "init.md", "orient.md", "review.md"]
    develop = notes.read(work / "develop.md")
    assert (develop["phase"], develop["unit"]) == ("DEVELOP", "login")
    assert "Added passkey login." in develop.body and "`src/passkey.py`" in develop.body
    report = memory.read_text("reference/reports/login.md")
    assert "Passkeys work." in report and "[[reference/work/login/review]]" in report
    assert "One naming nit, fixed." in report and "- `src/passkey.py`" in report
    assert state.read(memory) == state.State()
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "docs(state): report of unit login"
    assert_clean(memory.root)

    run(invoke, "state", "set", "--unit", "login", "--phase", "UPDATE-DOCS")  # the unit, reopened
    run(invoke, "unit", "report", "--json")
    second = memory.read_text("reference/reports/login.md")
    assert second.startswith(report) and second.count("## Report ·") == 2
    assert_clean(memory.root)


def test_a_phase_cannot_be_left_without_output_nor_skipped(memory, invoke):
    run(invoke, "unit", "start", "login")
    run(invoke, "unit", "phase", "ORIENT")
    done = invoke("unit", "phase", "DEVELOP")
    assert done.exit_code == 1
    assert done.output.strip() == ("souveraine: ORIENT has left no output yet; give it with --output TEXT|FILE "
                                   "before entering DEVELOP (it goes to reference/work/login/orient.md)")
    done = invoke("unit", "phase", "REVIEW", "--output", "read")
    assert done.exit_code == 1 and "REVIEW comes after DEVELOP, and the unit is in ORIENT" in done.output
    assert not memory.exists("reference/work/login/orient.md")  # the refused command wrote nothing
    done = invoke("unit", "report")
    assert done.exit_code == 1 and "the report comes after UPDATE-DOCS" in done.output
    assert_clean(memory.root)


def test_a_phase_can_be_continued_and_returned_to(memory, invoke):
    run(invoke, "unit", "start", "login", "--goal", "g")
    run(invoke, "unit", "phase", "ORIENT", "--output", "-")  # '-' with empty stdin adds nothing
    run(invoke, "unit", "phase", "DEVELOP", "--output", "read the code")
    run(invoke, "unit", "phase", "DEVELOP", "--output", "first half", "--files", "a.py")
    run(invoke, "unit", "phase", "REVIEW", "--output", "second half", "--files", "b.py")
    result = json.loads(run(invoke, "unit", "phase", "DEVELOP", "--output", "a bug in b.py", "--json").output)
    assert (result["phase"], result["left"], result["files_touched"]) == ("DEVELOP", "REVIEW", ["a.py", "b.py"])
    develop = memory.read_text("reference/work/login/develop.md")
    assert develop.index("first half") < develop.index("second half")
    assert "a bug in b.py" in memory.read_text("reference/work/login/review.md")
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "chore(state): unit login goes back to DEVELOP"


def test_one_unit_at_a_time(memory, invoke):
    run(invoke, "unit", "start", "login")
    done = invoke("unit", "start", "billing")
    assert done.exit_code == 1 and "unit login is in INIT; finish it with 'souveraine unit report'" in done.output
    done = invoke("unit", "phase", "idle")
    assert done.exit_code == 1
    run(invoke, "state", "set", "--phase", "idle")
    run(invoke, "unit", "start", "billing")
    assert state.read(memory).unit == "billing"


def test_no_unit_no_phase(memory, invoke):
    done = invoke("unit", "phase", "DEVELOP")
    assert done.exit_code == 1
    assert done.output.strip() == "souveraine: no unit is under way; start one with 'souveraine unit start NAME'"


def test_review_sends_the_work_back_to_develop_at_most_twice(memory, invoke):
    run(invoke, "unit", "start", "login", "--goal", "g")
    run(invoke, "unit", "phase", "ORIENT")
    run(invoke, "unit", "phase", "DEVELOP", "--output", "read the code")
    for attempt in (1, 2):
        run(invoke, "unit", "phase", "REVIEW", "--output", f"attempt {attempt}", "--files", f"f{attempt}.py")
        run(invoke, "unit", "phase", "DEVELOP", "--output", f"review {attempt} found a bug")
        assert state.read(memory).retries == attempt
    run(invoke, "unit", "phase", "REVIEW", "--output", "attempt 3")
    head, before = git(memory.root, "rev-parse", "HEAD"), memory.read_text("reference/work/login/review.md")

    third = invoke("unit", "phase", "DEVELOP", "--output", "review 3 found a bug")

    assert third.exit_code == 1
    assert third.output.strip() == (
        "souveraine: unit login went back from REVIEW to DEVELOP 2 times already, the most the workflow allows; "
        "report what blocks it ('souveraine unit report --blocked TEXT'), then start a new unit for what is left")
    assert git(memory.root, "rev-parse", "HEAD") == head and memory.read_text("reference/work/login/review.md") == before
    assert_clean(memory.root)
    assert json.loads(invoke("unit", "phase", "DEVELOP", "--json").stdout)["error"] == "retries_exhausted"

    out = json.loads(run(invoke, "unit", "report", "--blocked", "The session store cannot hold passkeys.", "--json").output)
    assert (out["phase"], out["retries"], out["blocked"]) == ("REVIEW", 2, "The session store cannot hold passkeys.")
    report = memory.read_text("reference/reports/login.md")
    assert "### Blocked in REVIEW, after 2 returns from REVIEW\n\nThe session store cannot hold passkeys." in report
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "docs(state): report of unit login (blocked in REVIEW)"
    assert state.read(memory).to_dict() == {"phase": "idle", "unit": "", "files_touched": [], "retries": 0}
    assert "retries" not in memory.read_text("system/state.md")
    run(invoke, "unit", "start", "login-store", "--goal", "a session store for passkeys")
    assert state.read(memory).retries == 0


def test_a_report_before_update_docs_needs_a_reason(memory, invoke):
    run(invoke, "unit", "start", "login")
    done = invoke("unit", "report")
    assert done.exit_code == 1 and "or say what blocks it with --blocked TEXT" in done.output


def _adr(memory, name, title, description, status="accepted"):
    with memory.change(f"docs(memory): decision {name}") as change:
        change.write(f"reference/decisions/{name}.md", f"---\ntype: decision\nstatus: {status}\ndescription: {description}\n"
                                                       f"tags:\n  - decision\n---\n# {title}\n\nContext, decision, consequences.\n")


def test_orient_lists_the_decisions_the_goal_touches(memory, invoke):
    _adr(memory, "0001-sqlite-index", "SQLite for the search index", "The recall index is SQLite FTS5, rebuilt from files.")
    _adr(memory, "0002-passkeys", "Passkeys, not passwords", "Users sign in with passkeys; passwords are gone.")
    _adr(memory, "0003-sessions", "Sessions in cookies", "Login sessions live in signed cookies.", status="superseded")
    _adr(memory, "0004-tabs", "Tabs for indentation", "Indent with tabs everywhere.")
    run(invoke, "unit", "start", "login", "--goal", "Users sign in with a passkey; sessions survive a restart.")

    shown = run(invoke, "unit", "phase", "ORIENT").stdout
    data = json.loads(run(invoke, "unit", "phase", "ORIENT", "--json").stdout)

    assert [d["path"] for d in data["decisions"]] == ["reference/decisions/0002-passkeys.md",
                                                      "reference/decisions/0003-sessions.md"]
    assert data["decisions"][0]["shared"] == ["passkey", "sign", "user"]
    assert shown.splitlines() == [
        "Decisions to read before the work (reference/decisions/):",
        "- reference/decisions/0002-passkeys.md [accepted]: Passkeys, not passwords — Users sign in with passkeys; passwords are gone.",
        "- reference/decisions/0003-sessions.md [superseded]: Sessions in cookies — Login sessions live in signed cookies."]
    assert run(invoke, "unit", "phase", "DEVELOP", "--output", "read them").stdout == ""


def test_orient_with_no_decisions_says_nothing(memory, invoke):
    run(invoke, "unit", "start", "login", "--goal", "Users sign in with a passkey.")
    assert run(invoke, "unit", "phase", "ORIENT").stdout == ""
    assert json.loads(run(invoke, "unit", "phase", "ORIENT", "--json").stdout)["decisions"] == []
