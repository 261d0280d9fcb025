"""The Click root: the `souveraine` group, its lazy command registry, and its one way to die."""

import importlib
import importlib.util
import os
import sys

import click

from souveraine import __version__
from souveraine.cli import COMMANDS
from souveraine.errors import SouveraineError


def _available(module: str) -> bool:
    return importlib.util.find_spec(f"souveraine.cli.{module}") is not None


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(name for name, module in COMMANDS.items() if _available(module))

    def get_command(self, ctx, name):
        module = COMMANDS.get(name)
        if module is None or not _available(module):
            return None
        return getattr(importlib.import_module(f"souveraine.cli.{module}"), name.replace("-", "_") + "_cmd")

    def main(self, args=None, prog_name=None, **extra):
        """One way to die: a line on stderr (and JSON on stdout with --json), a stable exit code."""
        args = list(sys.argv[1:] if args is None else args)
        as_json = "--json" in args
        debug = "--debug" in args or bool(os.environ.get("SOUVERAINE_DEBUG"))
        try:
            super().main(args=args, prog_name=prog_name or "souveraine", standalone_mode=False, **extra)
        except click.exceptions.Abort:
            _fail("aborted", 1, "aborted", as_json)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            from souveraine.cli.common import usage_line

            _fail(usage_line(exc, self, args), 2, "usage", as_json)
        except click.ClickException as exc:
            _fail(" ".join(exc.format_message().split()), exc.exit_code, "error", as_json)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except (Exception, KeyboardInterrupt) as exc:
            die(exc, as_json, debug)
        sys.exit(0)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--memory", "memory_path", metavar="PATH", help="The memory to use (default: $SOUVERAINE_MEMORY, else the nearest souveraine.toml above).")
@click.option("--now", "now", metavar="TIME", help="Run on another clock: 'now' is this ISO 8601 time "
              "(default: $SOUVERAINE_NOW, else the real time), for replaying or scripting the tempos.")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
@click.version_option(__version__, prog_name="souveraine")
@click.pass_context
def cli(ctx, memory_path, now, debug):
    """An agent's long-term memory: a git repository of Markdown files.

    Each command does one thing to the memory and commits it. Data goes to stdout
    (--json for programs), messages to stderr. Exit codes: 0 ok, 1 refused or
    findings, 2 usage, 3 not a memory or bad config. --now TIME (or SOUVERAINE_NOW)
    runs any command on another clock; completion: eval "$(_SOUVERAINE_COMPLETE=bash_source souveraine)".

    Example:

    \b
        souveraine init ~/memory && cd ~/memory && souveraine status
        souveraine --now 2026-11-30T09:00 surface --peek
    """
    from souveraine.cli.now import fix_now
    from souveraine.laws import inprocess

    fix_now(now)
    inprocess.enable()
    ctx.ensure_object(dict)
    ctx.obj["memory_path"] = memory_path
    ctx.obj["debug"] = debug or bool(os.environ.get("SOUVERAINE_DEBUG"))


def die(exc: BaseException, as_json: bool, debug: bool) -> None:
    """What a command raised, said in one line with its exit code (the lean paths' failures too)."""
    if isinstance(exc, SouveraineError):
        if debug:
            raise exc
        _fail(exc.message, exc.exit_code, exc.code, as_json)
    if isinstance(exc, KeyboardInterrupt):
        _fail("interrupted; nothing half-written was kept", 130, "interrupted", False)
    if isinstance(exc, BrokenPipeError):
        sys.stderr.close()
        sys.exit(1)
    if debug or not isinstance(exc, Exception):   # a bug still gets one line; --debug shows the traceback
        raise exc
    usage = isinstance(exc, UnicodeError)      # text given that cannot be stored
    _fail(_unexpected(exc), 2 if usage else 1, "usage" if usage else "internal", as_json)


def _fail(message: str, code: int, error: str, as_json: bool) -> None:
    message = " ".join(message.split("\n"))    # one line, whatever the input it quotes
    if as_json:
        _json_error(message, error)
    click.echo(f"souveraine: {message}", err=True)
    sys.exit(code)


def _unexpected(exc: Exception) -> str:
    if isinstance(exc, UnicodeError):
        return f"text that is not valid Unicode ({exc}); give UTF-8 text"
    words = " ".join(str(exc).split())[:200]
    return f"unexpected {type(exc).__name__}{': ' + words if words else ''}; run again with --debug to see where"


def _json_error(message: str, error: str) -> None:
    import json

    click.echo(json.dumps({"ok": False, "error": error, "message": message}))
