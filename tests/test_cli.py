"""The command line's manners: completion everywhere, one-line usage errors, another clock."""

import json
import os
import subprocess
import sys

import click
import pytest
from click.shell_completion import BashComplete

from souveraine.cli import cli
from souveraine.cli.reference import walk
from tests.support import ROOT

GROUPS = [(full, command) for full, command in walk(cli, click.Context(cli, info_name="souveraine"))
          if isinstance(command, click.Group) and full != "souveraine"]


def completions(words: list[str], incomplete: str = "") -> list[str]:
    return [c.value for c in BashComplete(cli, {}, "souveraine", "_SOUVERAINE_COMPLETE").get_completions(words, incomplete)]


@pytest.mark.parametrize("full, group", GROUPS, ids=[full for full, _ in GROUPS])
def test_completion_offers_every_subcommand_of_every_group(full, group):
    subcommands = sorted(group.list_commands(click.Context(group)))
    assert subcommands
    assert sorted(completions(full.split()[1:])) == subcommands
    assert completions(full.split()[1:], subcommands[0][:1]) == [s for s in subcommands if s[0] == subcommands[0][0]]


def test_completion_through_the_real_binary():
    env = {**os.environ, "_SOUVERAINE_COMPLETE": "bash_complete", "COMP_WORDS": "souveraine covenant ", "COMP_CWORD": "2"}
    done = subprocess.run([sys.executable, str(ROOT / "bin" / "souveraine")], env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout.split()) == (0, ["plain,add", "plain,list", "plain,revoke"])
    env.update(COMP_WORDS="souveraine wake --band", COMP_CWORD="2")
    done = subprocess.run([sys.executable, str(ROOT / "bin" / "souveraine")], env=env, capture_output=True, text=True)
    assert done.stdout.split() == ["plain,--bandwidth"]


def test_a_bare_default_group_still_runs_its_default(invoke):
    done = invoke("covenant", "--json")
    assert (done.exit_code, json.loads(done.stdout)) == (0, [])


@pytest.mark.parametrize("args, line", [
    (["wake", "--bandwith", "low"],
     "no such option '--bandwith'. Did you mean '--bandwidth'? See 'souveraine wake --help'."),
    (["wake", "--bandwidth", "loud"],
     "invalid value for '--bandwidth': 'loud' is not one of 'high', 'medium', 'low', 'minimal'. See 'souveraine wake --help'."),
    (["inbox", "add"], "missing argument 'TEXT'. See 'souveraine inbox add --help'."),
    (["covenant", "add", "--did"], "option '--did' requires an argument. See 'souveraine covenant add --help'."),
    (["nosuch"], "no such command 'nosuch'. See 'souveraine --help'."),
])
def test_usage_errors_are_one_line_exit_2_pointing_to_help(invoke, args, line):
    done = invoke(*args)
    assert (done.exit_code, done.stdout, done.stderr) == (2, "", f"souveraine: {line}\n")


def test_a_usage_error_with_json_is_json_on_stdout_too(invoke):
    done = invoke("wake", "--bandwith", "low", "--json")
    assert done.exit_code == 2 and done.stderr.count("\n") == 1
    assert json.loads(done.stdout) == {"ok": False, "error": "usage", "message": done.stderr[len("souveraine: "):-1]}


def test_now_runs_a_command_on_another_clock(invoke):
    done = invoke("--now", "2026-12-25T10:00:00+00:00", "inbox", "add", "Open the presents", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["at"].startswith("2026-12-25T10:00")
    bad = invoke("--now", "at noon", "status")
    assert (bad.exit_code, bad.stderr) == (
        2, "souveraine: --now is not an ISO 8601 time ('at noon'); write it like 2026-11-30T14:32\n")


def test_a_bad_souveraine_now_is_named(invoke, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "tomorrowish")
    done = invoke("status")
    assert (done.exit_code, done.stderr) == (
        2, "souveraine: SOUVERAINE_NOW is not an ISO 8601 time ('tomorrowish'); write it like 2026-11-30T14:32\n")
