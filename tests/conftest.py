"""Shared fixtures: every test runs against real memories in tmp_path, never a real home."""

import pytest
from click.testing import CliRunner

from tests.support import copy_memory, isolated_session


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
    """No test sees the user's home, git config, keys or memory."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("SOUVERAINE_NO_SERVER", "1")       # no recall server started behind a test's back
    for name in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW", "SOUVERAINE_DEBUG", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n[init]\n\tdefaultBranch = main\n")
    return home


@pytest.fixture(autouse=True)
def judged_in_process():
    """As under the CLI: the tool's own commits are judged in-process (tests of the hooks
    themselves commit through the git binary, which runs them)."""
    from souveraine.laws import inprocess
    from souveraine.store import git

    inprocess.enable()
    yield
    git.register(None, None)


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture(scope="session")
def memory_template(tmp_path_factory):
    """One memory made by the real init (identity ada, her key included), built once."""
    from souveraine.bootstrap import init

    with isolated_session(tmp_path_factory) as home:
        root = init(tmp_path_factory.mktemp("template") / "memory", identity="ada").root
    return root, home / ".config"


@pytest.fixture
def memory(memory_template, tmp_path):
    """A fresh memory made by init, as a Memory (a copy of the session's template)."""
    root, config = memory_template
    return copy_memory(root, tmp_path / "memory", config_from=config)


@pytest.fixture
def invoke(runner, memory):
    """Run a command against the fixture memory: ``invoke("status", "--json")``."""

    def run(*args, input=None, memory_root=None):
        from souveraine.cli import cli

        return runner.invoke(cli, ["--memory", str(memory_root or memory.root), *args], input=input, catch_exceptions=False)

    return run


@pytest.fixture(scope="session")
def year_memory(tmp_path_factory):
    """The one-year bench memory (bench/generate.py), built once a session; tests only read it."""
    from bench import generate
    from souveraine.store.memory import Memory

    with isolated_session(tmp_path_factory):
        root = generate.build(tmp_path_factory.mktemp("year") / "memory", generate.Shape.years(1)).root
    return Memory(root)
