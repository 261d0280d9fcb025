"""Every command explains itself, and the generated docs match the code."""

import click
import pytest

from souveraine.cli import COMMANDS, cli
from souveraine.cli.reference import DOCS, commands_markdown, config_markdown, walk

ALL = list(walk(cli, click.Context(cli, info_name="souveraine")))


def test_every_registered_module_exists():
    available = set(cli.list_commands(click.Context(cli)))
    assert available, "no command is available"
    assert available <= set(COMMANDS)


@pytest.mark.parametrize("full, command", ALL, ids=[name for name, _ in ALL])
def test_every_command_has_help_with_an_example(full, command):
    text = command.help or ""
    assert text.strip(), f"{full} has no help"
    if not isinstance(command, click.Group) or not command.list_commands(click.Context(command)):
        assert "Example" in text, f"{full}'s help has no Example block"


@pytest.mark.parametrize("full, command", ALL, ids=[name for name, _ in ALL])
def test_every_leaf_command_offers_json(full, command):
    if isinstance(command, click.Group):
        return
    names = {opt for param in command.params for opt in getattr(param, "opts", [])}
    assert "--json" in names or full.startswith(("souveraine hook ", "souveraine mcp", "souveraine schedule run")), \
        f"{full} has no --json"


def test_commands_doc_is_current():
    assert (DOCS / "COMMANDS.md").read_text() == commands_markdown(), \
        "docs/COMMANDS.md is stale: run python -m souveraine.cli.reference"


def test_config_doc_is_current():
    assert (DOCS / "CONFIG.md").read_text() == config_markdown(), \
        "docs/CONFIG.md is stale: run python -m souveraine.cli.reference"
