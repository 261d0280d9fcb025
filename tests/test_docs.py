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
def test_every_example_is_a_line_of_its_own_in_the_help(full, command):
    import inspect

    text = inspect.cleandoc(command.help or "")
    if "Example" not in text:
        return
    block = text.split("Example", 1)[1].split("\n", 1)[1]
    examples = [line.strip() for line in block.splitlines() if line.strip() not in ("", "\b")]
    ctx = click.Context(command, info_name=full, help_option_names=["-h", "--help"], max_content_width=100)
    shown = [line.strip() for line in command.get_help(ctx).splitlines()]
    assert [e for e in examples if e not in shown] == [], f"{full}: an example is run together or wrapped; put \\b before it"


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
