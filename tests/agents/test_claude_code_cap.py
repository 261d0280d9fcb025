"""Claude Code keeps 10,000 characters of a hook's output: the wake it is wired to fits, on a lived year."""

import json
import re
import subprocess
import sys

import pytest

from souveraine.wake import wake
from tests.support import ROOT

LAUNCHER = f"{sys.executable} {ROOT / 'bin' / 'souveraine'}"
KEPT = ["Who you are", "What shaped you", "Synthesized essence", "Inner voice", "Surfacing now"]


@pytest.fixture
def year(year_memory):
    """The one-year bench memory (bench/generate.py), built once a session rather than taken from bench/.cache."""
    return year_memory


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def headings(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, re.MULTILINE)


def test_a_year_of_memory_is_over_the_cap_uncut(year):
    assert utf16(wake(year).markdown()) > 10_000


def test_under_a_10000_character_cap_the_wake_keeps_who_you_are_and_says_what_went(year):
    capped = wake(year, max_chars=10_000)
    text = capped.markdown()
    assert utf16(text) <= 10_000
    assert {"Who you are", "What shaped you", "Surfacing now"} <= set(headings(text))
    assert capped.section("surfacing") and capped.left_out
    assert "## Left out" in text and "recent memories: `souveraine recall WORDS`" in text


def test_under_a_10000_character_cap_the_wake_keeps_the_essence_and_the_inner_voice(year):
    capped = wake(year, max_chars=10_000)
    assert [h for h in KEPT if h in headings(capped.markdown())] == KEPT
    assert capped.section("synthesized") and capped.section("inner_voice") and capped.section("surfacing")
    assert not {p.section for p in capped.left_out} & {"you", "shaped_by", "synthesized", "surfacing"}


def test_the_session_start_hook_integrate_writes_prints_under_the_cap(year, tmp_path, runner):
    from souveraine.cli import cli

    project = tmp_path / "project"
    done = runner.invoke(cli, ["--memory", str(year.root), "integrate", "claude-code", "--project", str(project),
                               "--souveraine", LAUNCHER], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    [command] = [h["command"] for group in settings["hooks"]["SessionStart"] for h in group["hooks"]]
    payload = {"session_id": "s1", "transcript_path": "", "cwd": str(project), "hook_event_name": "SessionStart",
               "source": "startup"}
    ran = subprocess.run(["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                         cwd=project)
    assert ran.returncode == 0, ran.stderr
    assert utf16(ran.stdout) <= 9_500 and ran.stdout.startswith("# Wake — bench\n")
    assert {"Who you are", "What shaped you", "Surfacing now", "Left out"} <= set(headings(ran.stdout))
