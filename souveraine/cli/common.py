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
    """

    def __init__(self, *args, default: str = "list", **kwargs):
        super().__init__(*args, **kwargs)
        self.default = default

    def parse_args(self, ctx, args):
        if not args or (args[0].startswith("-") and args[0] not in ("-h", "--help")):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


def _plain(data: Any) -> str:
    if isinstance(data, dict):
        return "\n".join(f"{k}: {v}" for k, v in data.items())
    if isinstance(data, list):
        return "\n".join(str(item) for item in data)
    return "" if data is None else str(data)
