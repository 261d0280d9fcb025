"""persist's lean path (cli/lean_persist.py): an exchange kept without Click, exactly as Click keeps it."""

import json
import subprocess
import sys

import click
import pytest

from souveraine.cli import lean_persist
from souveraine.cli.root import cli
from tests.support import ROOT, copy_memory
from tests.test_lean import RUN, UNSET, _env

NOW = "2026-12-01T09:00:00+00:00"


def run(mode: str, root, *args, stdin: str | None = None):
    """The real command line in a fresh process, on ``root``; with mode "click", Click runs it."""
    script = RUN.replace("lean.run = lambda args: False",
                         "lean.run = lambda args: False\n    from souveraine.cli import lean_persist\n"
                         "    lean_persist.run = lambda args: False")
    done = subprocess.run([sys.executable, "-c", script, mode, "--memory", str(root), *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, env={**_env(), "SOUVERAINE_NOW": NOW})
    stderr, _, mark = done.stderr.removesuffix("\n").rpartition("\n")
    return (done.returncode, done.stdout, stderr), mark == "CLICK"


@pytest.fixture
def twins(memory_template, tmp_path):
    """Two copies of one fresh memory: one for the lean path, one for Click."""
    root, config = memory_template
    return [copy_memory(root, tmp_path / name / "memory", config_from=config).root for name in ("lean", "click")]


def _log(root) -> list[str]:
    done = subprocess.run(["git", "-C", str(root), "log", "--format=%s%n%b", "-p"], capture_output=True, text=True)
    return done.stdout.splitlines()


def _without_commit(text: str) -> str:
    data = json.loads(text)
    data.pop("commit", None)
    return json.dumps(data, sort_keys=True)


def test_the_lean_table_is_the_click_commands_own():
    command = cli.get_command(click.Context(cli), "persist")
    known = {opt: param for param in command.params if isinstance(param, click.Option)
             for opt in (*param.opts, *param.secondary_opts)}
    for opt, (dest, kind) in lean_persist.PERSIST.items():
        param = known[opt]
        if opt in ("--n1", "--no-n1"):
            assert param.name == "n1" and param.is_flag and param.default in (None, UNSET) and \
                opt in (param.opts if opt == "--n1" else param.secondary_opts)
            continue
        assert (param.name, param.multiple, param.nargs, bool(param.secondary_opts)) == (dest, False, 1, False), opt
        if kind == lean_persist.FLAG:
            assert param.is_flag and param.default in (False, None, UNSET), opt
        else:
            assert not param.is_flag and param.default in (None, UNSET) and param.type is click.STRING, opt
    missing = set(known) - set(lean_persist.PERSIST) - {"--help", "-h"} - set(lean_persist.TO_CLICK)
    assert not missing, f"{sorted(missing)}: add it to cli/lean_persist.py's table, or to TO_CLICK"
    assert not [p for p in command.params if isinstance(p, click.Argument)]


@pytest.mark.parametrize("args, stdin", [
    (["persist", "--user", "My sister is Lea.", "--assistant", "I'll remember that she is Lea."], None),
    (["persist", "--json", "--session", "s1", "--user=Tomás asked?", "--assistant", "I'll call Inês tomorrow."], None),
    (["persist", "--no-n1", "--at", "2026-12-01T08:59:00+00:00", "--assistant", "Done."], None),
    (["--now", "2026-12-01T10:00", "persist", "--n1", "--json"], '{"user": "Hi", "assistant": "Hello!"}'),
    (["persist", "--no-commit", "--json", "--assistant", "Kept for later."], None),
])
def test_the_lean_path_keeps_an_exchange_as_click_does(twins, args, stdin):
    lean_answer, clicked = run("lean", twins[0], *args, stdin=stdin)
    assert not clicked, lean_answer
    click_answer = run("click", twins[1], *args, stdin=stdin)[0]
    assert lean_answer[0] == click_answer[0] == 0, (lean_answer, click_answer)
    assert lean_answer[2] == click_answer[2]
    if "--json" in args:
        assert _without_commit(lean_answer[1]) == _without_commit(click_answer[1])
    else:
        assert lean_answer[1] == click_answer[1] == ""
    assert _log(twins[0])[:1] == _log(twins[1])[:1]


@pytest.mark.parametrize("args, stdin", [
    (["persist", "--at", "nonsense", "--assistant", "x"], None),
    (["persist", "--json", "--at", "nonsense", "--assistant", "x"], None),
    (["persist", "--user", "only a question"], None),
    (["persist"], "{not json"),
    (["persist", "--json"], '{"user": "Hi", "assistant": ""}'),
    (["persist", "--claude-code"], "{}"),
    (["persist", "--claude-code", "--assistant", "x"], None),
])
def test_a_refusal_is_the_same_one_line_and_nothing_is_written(twins, args, stdin):
    lean_answer, _ = run("lean", twins[0], *args, stdin=stdin)      # Click comes in only to say the error
    assert lean_answer == run("click", twins[1], *args, stdin=stdin)[0]
    assert lean_answer[0] != 0 and lean_answer[2].startswith("souveraine: ") and "\n" not in lean_answer[2]
    assert not list((twins[0] / ".souveraine" / "spool").glob("*.json"))
    assert _log(twins[0]) == _log(twins[1])


@pytest.mark.parametrize("args", [
    ["persist", "--help"], ["persist", "--flush"], ["persist", "--flush", "--retry", "--json"],
    ["persist", "--assistant", "a", "--assistant", "b"], ["persist", "--assistant", "-1 is the answer"],
    ["persist", "--bogus"], ["persist", "word"], ["persist", "--n1", "--no-n1", "--assistant", "x"],
    ["persist", "--", "--assistant"], ["persist", "--json=1", "--assistant", "x"],
])
def test_what_the_lean_path_does_not_cover_is_clicks(twins, args):
    lean_answer, clicked = run("lean", twins[0], *args)
    assert clicked
    assert lean_answer == run("click", twins[1], *args)[0]


def test_not_a_memory_is_the_same_one_line(tmp_path):
    lean_answer, _ = run("lean", tmp_path, "persist", "--assistant", "x", "--json")
    assert lean_answer == run("click", tmp_path, "persist", "--assistant", "x", "--json")[0]
    assert lean_answer[0] == 3 and json.loads(lean_answer[1])["ok"] is False
