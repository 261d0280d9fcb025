"""docs/COMMANDS.md and docs/CONFIG.md, generated from the commands and the config schema.

`python -m souveraine.cli.reference` rewrites both; tests/test_docs.py fails when they drift.
"""

import sys
from pathlib import Path

import click

from souveraine.cli import cli
from souveraine.store.config import DYNAMIC, SCHEMA

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"


def walk(group: click.Group, ctx: click.Context, prefix: str = "souveraine"):
    """Every command under ``group`` with its full name, depth first, sorted."""
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        full = f"{prefix} {name}"
        yield full, command
        if isinstance(command, click.Group):
            sub = _context(command, name, parent=ctx)
            yield from walk(command, sub, full)


def _context(command, name, parent=None) -> click.Context:
    # A fixed width, so the generated text does not depend on the terminal.
    return click.Context(command, info_name=name, parent=parent, terminal_width=80, max_content_width=80,
                         help_option_names=["-h", "--help"])


def commands_markdown() -> str:
    ctx = _context(cli, "souveraine")
    out = ["# Commands", "", "Generated from the commands' own help by "
           "`python -m souveraine.cli.reference`; do not edit by hand.", ""]
    for full, command in walk(cli, ctx):
        sub = _context(command, full)
        out += [f"## `{full}`", "", "```", command.get_help(sub).strip(), "```", ""]
    return "\n".join(out)


def config_markdown() -> str:
    out = ["# souveraine.toml", "", "Every key, its default and meaning. Generated from "
           "`souveraine/store/config.py` by `python -m souveraine.cli.reference`.", "",
           "Every command reads the file when it starts, so an edit counts from the next command (and the next "
           "call of the MCP server). The checked table is kept in `.souveraine/config.json` for the very same "
           "text, so a command need not parse TOML again.", ""]
    sections = [(name, keys) for name, keys in SCHEMA.items()] + [(f"{n}.<name>", k) for n, k in DYNAMIC.items()]
    for section, keys in sections:
        out += [f"## [{section}]", "", "| key | default | meaning |", "|---|---|---|"]
        out += [f"| `{key}` | `{spec.default!r}` | {spec.doc} |" for key, spec in keys.items()]
        out.append("")
    return "\n".join(out)


def write() -> list[Path]:
    written = []
    for name, text in (("COMMANDS.md", commands_markdown()), ("CONFIG.md", config_markdown())):
        path = DOCS / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write():
        print(path, file=sys.stderr)
