"""Viewports as the constitution's table says (§III.2–III.3), for wake, status and surface alike.

high: everything (N+1 results, inbox contents, fork status, chain states, recent commits);
medium: the operational state (the active unit and forks, what needs attention); low: only
what is urgent; minimal: one line of presence.
"""

import json
import re

import pytest

from souveraine.sensorium import bandwidth as classes
from souveraine.store import clock
from souveraine.tempos import inbox
from tests.support import assert_clean

BANDWIDTHS = ["high", "medium", "low", "minimal"]


def headings(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, re.MULTILINE)


@pytest.fixture
def busy(memory, invoke, monkeypatch):
    """A memory at work: a unit back from review once, a fork returned and one running, a
    persisted turn, and a thought of every urgency waiting."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T10:00:00+01:00")
    for args in (("unit", "start", "login", "--goal", "Users sign in with a passkey."),
                 ("unit", "phase", "ORIENT"), ("unit", "phase", "DEVELOP", "--output", "read auth.py"),
                 ("unit", "phase", "REVIEW", "--output", "passkeys added", "--files", "src/auth.py"),
                 ("unit", "phase", "DEVELOP", "--output", "a test fails"),
                 ("fork", "start", "research", "--task", "compare the ranking formulas"),
                 ("fork", "start", "drafts", "--task", "draft the release notes"),
                 ("fork", "return", "drafts", "--summary", "notes drafted"),
                 ("persist", "--user", "Where are we with the login?", "--assistant", "Passkeys are in; one test fails.")):
        done = invoke(*args)
        assert done.exit_code == 0, (args, done.output)
    for urgency, text in (("low", "Tidy the notes folder"), ("medium", "Reply to Bea about the release"),
                          ("high", "The deploy key expires Friday"), ("critical", "The backup failed twice")):
        inbox.add(memory, text, urgency=urgency)
    return memory


def status_of(invoke, bandwidth):
    return json.loads(invoke("status", "--bandwidth", bandwidth, "--json").stdout), invoke("status", "--bandwidth", bandwidth).stdout


# -- status --------------------------------------------------------------------------------

def test_status_high_shows_everything(busy, invoke):
    data, text = status_of(invoke, "high")
    assert data["unit"]["unit"] == "login" and data["unit"]["phase"] == "DEVELOP" and data["unit"]["retries"] == 1
    assert [c["status"] for c in data["unit"]["chain"]] == ["done", "done", "current", "done", "to come", "to come"]
    assert {f["name"]: f["status"] for f in data["forks"]} == {"drafts": "returned", "research": "active"}
    assert all(isinstance(f["divergence"], int) for f in data["forks"])
    assert [i["urgency"] for i in data["inbox"]] == ["critical", "high", "medium", "low"]
    assert data["n1"]["subject"].startswith("chore(journal): persist 2 turns") and data["n1"]["sha"]
    assert len(data["commits"]) == classes.COMMITS and data["journal"]["turns"] == 2 and "hooks" in data
    assert [a["urgency"] for a in data["attention"]] == ["critical", "medium"]
    assert "chain      INIT ✓ → ORIENT ✓ → DEVELOP ◉ → REVIEW ✓ → UPDATE-DOCS · → REPORT ·" in text
    assert "phase      DEVELOP · unit login · back from review 1 of 2 — Users sign in with a passkey." in text
    assert "forks      drafts (returned, " in text and "research (active, 0 of 200 lines) — compare the ranking formulas" in text
    assert "           - [critical] The backup failed twice" in text and "n+1        " in text and "commits    " in text


def test_status_medium_is_the_operational_state(busy, invoke):
    data, text = status_of(invoke, "medium")
    assert set(data) == {"bandwidth", "identity", "phase", "unit", "forks", "pending", "pressure", "memories", "attention"}
    assert "chain" not in data["unit"] and all("divergence" not in f for f in data["forks"])
    assert data["pending"] == 4
    assert [a["what"] for a in data["attention"]] == ["4 thoughts waiting in the inbox (the most urgent: critical)",
                                                      "fork drafts returned: integrate it or close it"]
    assert "forks      drafts (returned) — draft the release notes" in text and "chain" not in text
    assert "commits" not in text and "n+1" not in text and "journal" not in text


def test_status_low_is_only_what_is_urgent(busy, invoke):
    data, text = status_of(invoke, "low")
    assert set(data) == {"bandwidth", "identity", "phase", "urgent", "attention"}
    assert [i["text"] for i in data["urgent"]] == ["The backup failed twice", "The deploy key expires Friday"]
    assert data["attention"] == []
    assert text.splitlines() == ["identity   ada", "phase      DEVELOP",
                                 "urgent     [critical] The backup failed twice",
                                 "           [high] The deploy key expires Friday",
                                 "attention  nothing needs attention"]


def test_status_minimal_is_one_line_of_presence(busy, invoke):
    data, text = status_of(invoke, "minimal")
    assert text == "ada · thinking (unit login, DEVELOP) · 4 waiting, 1 critical\n"
    assert data["presence"] == "thinking" and data["critical"] == 1


def test_each_status_view_differs_and_shrinks(busy, invoke):
    texts = [status_of(invoke, b)[1] for b in BANDWIDTHS]
    assert [len(t) for t in texts] == sorted((len(t) for t in texts), reverse=True) and len(set(texts)) == 4
    assert_clean(busy.root)


# -- wake ----------------------------------------------------------------------------------

def test_the_wake_at_work_by_bandwidth(busy, invoke):
    views = {b: json.loads(invoke("wake", "--bandwidth", b, "--json").stdout) for b in BANDWIDTHS}
    texts = {b: invoke("wake", "--bandwidth", b).stdout for b in BANDWIDTHS}
    kinds = {b: [p["kind"] for p in views[b]["at_work"]] for b in BANDWIDTHS}
    assert kinds == {"high": ["unit", "fork", "fork", "n1", "commits", "attention"],
                     "medium": ["unit", "fork", "fork", "attention"],
                     "low": [], "minimal": []}
    assert "  INIT ✓ → ORIENT ✓ → DEVELOP ◉ → REVIEW ✓ → UPDATE-DOCS · → REPORT · — outputs in `reference/work/login/`" \
        in texts["high"]
    assert "- Fork `research` (active, 0 of 200 lines): compare the ranking formulas" in texts["high"]
    assert "- Fork `research` (active): compare the ranking formulas" in texts["medium"]
    assert "- Last N+1: `" in texts["high"] and "Last N+1" not in texts["medium"]
    assert "- **medium**: fork drafts returned: integrate it or close it (`souveraine fork integrate drafts`)" in texts["medium"]
    assert "waiting · low · Tidy the notes folder" in texts["high"] and "Tidy the notes folder" not in texts["medium"]
    assert "[surfacing: critical: The backup failed twice]" in texts["low"] and "At work" not in headings(texts["low"])
    assert texts["minimal"].endswith("## Presence\n\nada · thinking (unit login, DEVELOP) · 4 waiting, 1 critical\n")
    assert [len(texts[b]) for b in BANDWIDTHS] == sorted((len(t) for t in texts.values()), reverse=True)


def test_the_wake_stays_byte_identical_at_work(busy, invoke):
    assert invoke("wake").stdout_bytes == invoke("wake").stdout_bytes


# -- surface -------------------------------------------------------------------------------

def test_surface_by_bandwidth(busy, invoke):
    peek = {b: invoke("surface", "--peek", "--bandwidth", b).stdout.splitlines() for b in BANDWIDTHS}
    high = peek["high"]
    assert high[:5] == ["[surfacing: critical: The backup failed twice]", "[inbox: 3 waiting]",
                        "  - high: The deploy key expires Friday", "  - medium: Reply to Bea about the release",
                        "  - low: Tidy the notes folder"]
    assert high[5:9] == ["[unit: login · DEVELOP · back from review 1 of 2]",
                         "  INIT ✓ → ORIENT ✓ → DEVELOP ◉ → REVIEW ✓ → UPDATE-DOCS · → REPORT ·",
                         "[fork: drafts (returned, 0 of 200 lines) — draft the release notes]",
                         "[fork: research (active, 0 of 200 lines) — compare the ranking formulas]"]
    assert re.fullmatch(r"\[n\+1: [0-9a-f]{7,} chore\(journal\): persist 2 turns at 10:00\]", high[9])
    assert high[10] == f"[commits: {classes.COMMITS} newest]" and all(line.startswith("  - ") for line in high[11:16])
    assert high[16:] == ["[attention: medium: fork drafts returned: integrate it or close it — souveraine fork integrate drafts]"]
    assert peek["medium"] == [
        "[surfacing: critical: The backup failed twice]", "[inbox: 3 more waiting: souveraine inbox]",
        "[unit: login · DEVELOP · back from review 1 of 2]",
        "[fork: drafts (returned) — draft the release notes]", "[fork: research (active) — compare the ranking formulas]",
        "[attention: medium: fork drafts returned: integrate it or close it — souveraine fork integrate drafts]"]
    assert peek["low"] == ["[surfacing: critical: The backup failed twice]"]
    assert peek["minimal"] == ["[surfacing: presence: 4 waiting, 1 critical]"]
    data = json.loads(invoke("surface", "--peek", "--json").stdout)
    assert [i["urgency"] for i in data["inbox"]] == ["high", "medium", "low"]
    assert set(data["at_work"]) == {"unit", "forks", "attention", "n1", "commits"}
    assert data["at_work"]["unit"]["chain"][2] == {"phase": "DEVELOP", "status": "current", "entries": 1,
                                                   "path": "reference/work/login/develop.md"}
    medium = json.loads(invoke("surface", "--peek", "--bandwidth", "medium", "--json").stdout)["at_work"]
    assert set(medium) == {"unit", "forks", "attention"} and "chain" not in medium["unit"]
    low = json.loads(invoke("surface", "--peek", "--bandwidth", "low", "--json").stdout)
    assert low["inbox"] == [] and low["at_work"] == {}


def test_surface_is_quiet_when_nothing_waits_and_nothing_is_under_way(memory, invoke):
    assert {b: invoke("surface", "--bandwidth", b).stdout for b in BANDWIDTHS} == dict.fromkeys(BANDWIDTHS, "")
    invoke("unit", "start", "login", "--goal", "Users sign in with a passkey.")
    assert invoke("surface", "--bandwidth", "medium").stdout == "[unit: login · INIT]\n"
    assert invoke("surface", "--bandwidth", "low").stdout == ""


def test_the_agents_hook_reads_no_work_state(busy, monkeypatch):
    from souveraine.sensorium import telemetry
    from souveraine.tempos.surface import surface

    monkeypatch.setattr(telemetry, "forks", lambda *a, **k: pytest.fail("the per-turn surfacing read the forks"))
    assert surface(busy, peek=True).lines == ["[surfacing: critical: The backup failed twice]"]


# -- the one-year bench memory -------------------------------------------------------------

def test_on_a_lived_year_the_wake_differs_as_the_table_says(year_memory):
    from souveraine.wake import wake

    docs = {b: wake(year_memory, bandwidth=b) for b in BANDWIDTHS}
    texts = {b: d.markdown() for b, d in docs.items()}
    sizes = [len(texts[b].encode()) for b in BANDWIDTHS]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 4
    assert sizes[0] - sizes[2] > 2_000                      # not a header's worth: whole views differ
    assert texts["minimal"].endswith("\n\n## Presence\n\nbench · idle · nothing waiting\n") and len(texts["minimal"].splitlines()) == 7
    assert "At work" in headings(texts["high"]) and "- Recent commits:" in texts["high"]
    assert "At work" not in headings(texts["low"]) and "Inner voice" not in headings(texts["low"])
    assert docs["low"].section("memory")[1:] == [] and len(docs["medium"].section("memory")) > 1
    floors = {b: {p.data["urgency"] for p in docs[b].section("inner_voice")} for b in ("high", "medium")}
    assert floors["medium"] <= {"medium", "high", "critical"} and len(docs["medium"].section("inner_voice")) \
        < len(docs["high"].section("inner_voice"))


def test_on_a_lived_year_status_differs_as_the_table_says(year_memory):
    from souveraine.cli.status import render
    from souveraine.status import status

    views = {b: status(year_memory, b) for b in BANDWIDTHS}
    assert views["high"]["journal"]["days"] == 365 and len(views["high"]["commits"]) == 5
    assert "journal" not in views["medium"] and "forks" in views["medium"] and "commits" not in views["medium"]
    assert set(views["low"]) == {"bandwidth", "identity", "phase", "urgent", "attention"}
    assert render(views["minimal"]) == "bench · idle · nothing waiting"
    assert len({render(v) for v in views.values()}) == 4


def test_the_seeds_table_is_the_code(memory):
    assert classes.BANDWIDTHS == ("high", "medium", "low", "minimal")
    assert {"n1", "inbox", "forks", "chain", "commits"} <= classes.SHOWS["high"]
    assert {"unit", "forks", "attention"} <= classes.SHOWS["medium"] and not {"n1", "commits", "chain", "inbox"} & classes.SHOWS["medium"]
    assert classes.SHOWS["low"] & {"unit", "forks", "n1", "commits", "inbox", "recent"} == set()
    assert classes.SHOWS["minimal"] == {"presence"}
    assert [classes.passes("low", u) for u in ("low", "medium", "high", "critical")] == [False, False, True, True]
    assert clock.now()  # the clock is untouched by the table


@pytest.fixture
def year_at_work(year_memory, tmp_path, runner, monkeypatch):
    """A copy of the one-year memory put to work: a unit back from REVIEW, a fork, an N+1 pass, two thoughts."""
    import shutil
    import subprocess

    from souveraine.cli import cli
    from souveraine.laws.install import install
    from souveraine.store.memory import Memory

    monkeypatch.setenv("SOUVERAINE_NOW", "2026-12-01T09:00:00+01:00")
    root = tmp_path / "memory"
    shutil.copytree(year_memory.root, root, symlinks=True)
    subprocess.run(["git", "-C", str(root), "update-index", "-q", "--refresh"], capture_output=True)
    install(root)
    for args in (("unit", "start", "login", "--goal", "Users sign in with a passkey."), ("unit", "phase", "ORIENT"),
                 ("unit", "phase", "DEVELOP", "--output", "read auth.py"),
                 ("unit", "phase", "REVIEW", "--output", "passkeys added", "--files", "src/auth.py"),
                 ("unit", "phase", "DEVELOP", "--output", "a test fails"),
                 ("fork", "start", "research", "--task", "compare the ranking formulas"),
                 ("persist", "--user", "Where are we with the login?", "--assistant", "Passkeys are in; one test fails."),
                 ("inbox", "add", "Tidy the notes folder", "--urgency", "low"),
                 ("inbox", "add", "The backup failed twice", "--urgency", "critical")):
        done = runner.invoke(cli, ["--memory", str(root), *args])
        assert done.exit_code == 0, (args, done.output)
    return Memory(root), lambda *args: runner.invoke(cli, ["--memory", str(root), *args]).stdout


def test_on_a_lived_year_at_work_wake_status_and_surface_differ_as_the_table_says(year_at_work):
    memory, run = year_at_work
    views = {command: {b: run(*args, "--bandwidth", b) for b in BANDWIDTHS}
             for command, args in (("wake", ("wake",)), ("status", ("status",)), ("surface", ("surface", "--peek")))}
    for command, view in views.items():
        sizes = [len(view[b].encode()) for b in BANDWIDTHS]
        assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 4, (command, sizes)
    wake, status, surface = views["wake"], views["status"], views["surface"]
    chain = "INIT ✓ → ORIENT ✓ → DEVELOP ◉ → REVIEW ✓ → UPDATE-DOCS · → REPORT ·"
    # high: the unit and its chain, the fork and its divergence, the last N+1, recent commits
    assert all(chain in view["high"] for view in views.values())
    assert "- Fork `research` (active, 0 of 200 lines)" in wake["high"] and "- Recent commits:" in wake["high"]
    assert "research (active, 0 of 200 lines)" in status["high"] and "commits    " in status["high"]
    assert "[fork: research (active, 0 of 200 lines)" in surface["high"] and "[commits: 5 newest]" in surface["high"]
    assert "- Last N+1: `" in wake["high"] and "n+1        " in status["high"] and "[n+1: " in surface["high"]
    # medium: the active unit and forks, what needs attention — no chain, no commits
    assert "- Fork `research` (active): compare" in wake["medium"] and "[fork: research (active) — compare" in surface["medium"]
    assert "forks      research (active)" in status["medium"]
    assert all(chain not in view["medium"] for view in views.values())
    assert "- Recent commits:" not in wake["medium"] and "commits    " not in status["medium"] \
        and "[commits:" not in surface["medium"] and "[n+1: " not in surface["medium"]
    # low: only what is urgent
    assert "[surfacing: critical: The backup failed twice]" in wake["low"] and "research" not in wake["low"]
    assert surface["low"] == "[surfacing: critical: The backup failed twice]\n"
    assert "urgent     [critical] The backup failed twice" in status["low"] and "Tidy" not in status["low"]
    # minimal: one line of presence
    line = "bench · thinking (unit login, DEVELOP) · 2 waiting, 1 critical"
    assert status["minimal"] == line + "\n" and wake["minimal"].endswith(f"## Presence\n\n{line}\n")
    assert surface["minimal"] == "[surfacing: presence: 2 waiting, 1 critical]\n"
    assert_clean(memory.root)
