"""The lean path (cli/lean.py): recall without Click, exactly as Click would run it, or left to Click."""

import json
import subprocess
import sys

import click
import pytest

from souveraine.cli import lean
from souveraine.cli.root import cli
from tests.support import ROOT

# The real command line in a fresh process; with "click" first, the lean path is turned off.
RUN = """
import atexit, sys
if sys.argv[1] == "click":
    from souveraine.cli import lean
    lean.run = lambda args: False
atexit.register(lambda: print("CLICK" if "click" in sys.modules else "LEAN", file=sys.stderr))
from souveraine.cli import main
main(sys.argv[2:])
"""


def run(mode: str, memory, *args):
    done = subprocess.run([sys.executable, "-c", RUN, mode, "--memory", str(memory.root), *args], cwd=ROOT,
                          capture_output=True, text=True, env={**_env(), "SOUVERAINE_NOW": "2026-12-01T09:00:00+00:00"})
    stderr, _, mark = done.stderr.removesuffix("\n").rpartition("\n")      # the last line says who ran it
    return (done.returncode, done.stdout, stderr), mark == "CLICK"


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k not in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW")}


UNSET = getattr(click.core, "UNSET", None)     # Click's "no default given": the command is passed None


def options(command: click.Command) -> dict[str, click.Parameter]:
    return {opt: param for param in command.params if isinstance(param, click.Option)
            for opt in (*param.opts, *param.secondary_opts)}


@pytest.mark.parametrize("table, name", [(lean.ROOT, None), (lean.RECALL, "recall")])
def test_the_lean_tables_are_the_click_commands_own(table, name):
    command = cli if name is None else cli.get_command(click.Context(cli), name)
    known = options(command)
    for opt, (dest, kind) in table.items():
        param = known[opt]
        if opt in param.secondary_opts:     # the off side of a --x/--no-x flag: a flag of its own here
            assert (dest, kind, param.is_flag, param.default) == (f"no_{param.name}", lean.FLAG, True, None), opt
            continue
        assert (param.name, param.multiple, param.nargs) == (dest, False, 1), opt
        assert all(other in table for other in param.secondary_opts), opt
        default = None if param.default is UNSET else param.default
        if kind == lean.FLAG:
            assert param.is_flag and default in (False, None), opt
            continue
        assert not param.is_flag and default == lean.DEFAULTS.get(dest), opt
        if kind is str:
            assert param.type is click.STRING, opt
        elif isinstance(kind, tuple):
            assert isinstance(param.type, click.Choice) and tuple(param.type.choices) == kind, opt
            assert param.type.case_sensitive, opt
        else:
            assert isinstance(param.type, click.IntRange) and not param.type.clamp, opt
            assert (param.type.min, param.type.max, param.type.min_open, param.type.max_open) == \
                (kind.start, kind.stop - 1, False, False), opt
    missing = set(known) - set(table) - {"--help", "-h", "--version"} - set(lean.TO_CLICK if name else ())
    assert not missing, (f"{sorted(missing)}: an option the lean path does not know (it leaves it to Click); "
                         "add it to cli/lean.py's table and pass it on as the command does")
    if name == "recall":
        assert [(p.name, p.nargs) for p in command.params if isinstance(p, click.Argument)] == [("words", -1)]


SEEDED = ["I keep the deploy key in the blue folder.", "Clara's birthday present: a kayak for the harbour.",
          "In May we planned the release; the deploy key expires then."]


@pytest.fixture(scope="module")
def seeded(memory_template, tmp_path_factory):
    """One memory for the module (each test only reads it), a few turns persisted."""
    from tests.support import copy_memory, isolated_session, souveraine

    with isolated_session(tmp_path_factory):
        memory = copy_memory(memory_template[0], tmp_path_factory.mktemp("lean") / "memory",
                             config_from=memory_template[1])
        for n, text in enumerate(SEEDED):
            done = souveraine("--memory", str(memory.root), "persist", "--user", text, "--assistant", f"Noted, {n}?",
                              env={"SOUVERAINE_NOW": f"2026-11-30T1{n}:00:00+00:00"})
            assert done.returncode == 0, done.stderr
    return memory


@pytest.mark.parametrize("args", [
    ["recall", "deploy key"], ["recall", "deploy", "--json"], ["recall", "--limit", "1", "key"],
    ["recall", "--limit=2", "--json", "deploy", "key"], ["recall", "the", "release", "in", "May"],
    ["recall", "zeppelin"], ["recall", "zeppelin", "--json"], ["--now", "2026-12-02T10:00", "recall", "key"],
    ["recall", "--tier", "episodic", "--context", "1", "key"], ["recall", "--in", "journal", "--all", "harbour"],
    ["recall", "--no-recency", "--private", "--since", "2026-11", "--until", "2026-12", "key"],
    ["recall", "--person", "Clara", "kayak"], ["--debug", "recall", "--now", "2026-12-01", "last", "week"],
    ["recall", "--no-semantic", "key"],
])
def test_the_lean_path_answers_as_click_does(seeded, args):
    lean_answer, clicked = run("lean", seeded, *args)
    assert not clicked, lean_answer
    assert lean_answer == run("click", seeded, *args)[0]
    if "--json" in args:
        json.loads(lean_answer[1])


@pytest.mark.parametrize("args", [
    ["recall"], ["recall", "--limit", "0", "x"], ["recall", "--tier", "nope", "x"], ["recall", "--help"],
    ["recall", "--bogus", "x"], ["recall", "-x"], ["recall", "--json=1", "x"], ["recall", "--since", "whenever", "x"],
    ["recall", "--limit", "5", "--limit", "6", "x"], ["recall", "--", "--json"], ["--version"],
    ["recall", "--semantic", "--no-semantic", "key"],
])
def test_what_the_lean_path_does_not_cover_is_clicks(seeded, args):
    lean_answer, clicked = run("lean", seeded, *args)
    assert clicked
    assert lean_answer == run("click", seeded, *args)[0]


def test_not_a_memory_is_clicks_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-c", RUN, "lean", "--memory", str(tmp_path), "recall", "x", "--json"],
                          cwd=ROOT, capture_output=True, text=True, env=_env())
    assert done.returncode == 3 and json.loads(done.stdout)["ok"] is False
    assert done.stderr.startswith("souveraine: ") and done.stderr.endswith("\nCLICK\n")
