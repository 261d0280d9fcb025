"""What every command shares: finding the memory, --json, output, progress, sub-group defaults."""

import functools
import json
import sys
from typing import Any, Callable

import click

from souveraine.store.memory import Memory


def pass_memory(func: Callable) -> Callable:
    """Add ``--memory PATH`` and pass the found Memory as ``memory``."""

    @click.option("--memory", "memory_path", metavar="PATH", default=None,
                  help="The memory to use (default: $SOUVERAINE_MEMORY, else the nearest souveraine.toml above).")
    @functools.wraps(func)
    def wrapper(*args, memory_path=None, **kwargs):
        ctx = click.get_current_context()
        chosen = memory_path or (ctx.find_root().obj or {}).get("memory_path")
        return func(*args, memory=Memory.find(chosen), **kwargs)

    return wrapper


def json_option(func: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for programs instead of text.")(func)


def emit(data: Any, as_json: bool, render: Callable[[Any], str | None] | None = None) -> None:
    """Data to stdout: JSON for programs, or the rendered text (nothing when it is empty)."""
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return
    text = render(data) if render else _plain(data)
    if text:
        click.echo(text.rstrip("\n"))


def say(message: str, quiet: bool = False) -> None:
    """A message for people, on stderr."""
    if not quiet:
        click.echo(message, err=True)


def progress(label: str, enabled: bool = True):
    """A progress callback ``(done, total)`` drawing a bar on a terminal's stderr; a no-op elsewhere."""
    if not enabled or not sys.stderr.isatty():
        return None
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)

    return update


class DefaultGroup(click.Group):
    """A sub-group that runs its ``list`` (or another default) when called bare.

    ``souveraine covenant`` is ``covenant list``; ``covenant --json`` is ``covenant list --json``.
    Shell completion parses resiliently and must see the bare group, to offer its subcommands.
    """

    def __init__(self, *args, default: str = "list", **kwargs):
        super().__init__(*args, **kwargs)
        self.default = default

    def parse_args(self, ctx, args):
        bare = not args or (args[0].startswith("-") and args[0] not in ("-h", "--help"))
        if bare and not ctx.resilient_parsing:
            args = [self.default, *args]
        return super().parse_args(ctx, args)


def usage_line(exc: click.UsageError, root: click.Group, args: list[str]) -> str:
    """Click's usage error as one line, the fact then where to look: ``no such option '--bandwith'. Did you
    mean '--bandwidth'? See 'souveraine wake --help'.``"""
    message = " ".join(exc.format_message().split())
    message = message[:1].lower() + message[1:]
    if exc.ctx is not None and exc.ctx.parent is not None:
        where = " ".join(["souveraine", *exc.ctx.command_path.split()[1:]])
    else:
        where = _path(root, args)
    message = message if message.endswith(("?", "!", ".")) else message + "."
    return f"{message} See '{where} --help'."


def _path(root: click.Group, args: list[str]) -> str:
    """The command the arguments name, as far as they name one: ``souveraine covenant add``."""
    words, command, ctx = ["souveraine"], root, click.Context(root, info_name="souveraine")
    rest = iter(args)
    for arg in rest:
        if not isinstance(command, click.Group):
            break
        if arg.startswith("-"):
            option = next((p for p in command.params if arg in getattr(p, "opts", ())), None)
            if option is not None and not getattr(option, "is_flag", False):
                next(rest, None)
            continue
        found = command.get_command(ctx, arg)
        if found is None:
            break
        words.append(arg)
        command = found
    return " ".join(words)


def _plain(data: Any) -> str:
    if isinstance(data, dict):
        return "\n".join(f"{k}: {v}" for k, v in data.items())
    if isinstance(data, list):
        return "\n".join(str(item) for item in data)
    return "" if data is None else str(data)
