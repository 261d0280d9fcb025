from tests.laws.conftest import made, memory  # noqa: F401  a memory made by init, one journal day, hooks installed


import pytest


@pytest.fixture
def invoke(runner, memory):
    """Run a command against a memory (the fixture's, or ``memory_root``)."""

    def run(*args, input=None, memory_root=None):
        from souveraine.cli import cli

        return runner.invoke(cli, ["--memory", str(memory_root or memory.root), *args], input=input, catch_exceptions=False)

    return run
