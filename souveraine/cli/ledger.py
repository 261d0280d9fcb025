"""`souveraine ledger`: list, close and drop."""

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory

KIND = click.Choice(["commitments", "assumptions", "patterns", "drift",
                     "commitment", "assumption", "pattern"])


class _LedgerGroup(DefaultGroup):
    """``ledger``, ``ledger commitments --open``: anything but a subcommand lists."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


@click.group(name="ledger", cls=_LedgerGroup, default="list")
def ledger_cmd():
    """The ledger: commitments, assumptions, patterns and drift, with their source turns.

    Example:

    \b
        souveraine ledger commitments --open
    """


@ledger_cmd.command(name="list")
@click.argument("kind", required=False, type=KIND)
@click.option("--open", "open_only", is_flag=True, help="Only entries still open.")
@json_option
@pass_memory
def ledger_list(memory, kind, open_only, as_json):
    """List entries: KIND is one of the four (default: all).

    Each entry shows its id, status, label, words, due day (if any) and the turn it came from.

    Example:

    \b
        souveraine ledger commitments --open --json
    """
    from souveraine.tempos import ledger

    emit([e.to_dict() for e in ledger.entries(memory, kind, open_only)], as_json, _render)


@ledger_cmd.command(name="close")
@click.argument("entry_id", metavar="ID")
@click.option("--note", default="", help="Why or how it was kept, kept on the entry's line.")
@json_option
@pass_memory
def ledger_close(memory, entry_id, note, as_json):
    """Close an open entry by hand: the promise was kept (one commit).

    Its reminder leaves the inbox if it has not surfaced yet.

    Example:

    \b
        souveraine ledger close c3fa9c2 --note "sent by email"
    """
    from souveraine.tempos import ledger

    emit(ledger.settle(memory, entry_id, "closed", note), as_json, lambda data: None)


@ledger_cmd.command(name="drop")
@click.argument("entry_id", metavar="ID")
@click.option("--note", default="", help="Why it will not be kept.")
@json_option
@pass_memory
def ledger_drop(memory, entry_id, note, as_json):
    """Drop an open entry by hand: it will not be kept, and nothing should remind of it (one commit).

    Example:

    \b
        souveraine ledger drop c3fa9c2 --note "no longer needed"
    """
    from souveraine.tempos import ledger

    emit(ledger.settle(memory, entry_id, "dropped", note), as_json, lambda data: None)


def _render(entries: list[dict]) -> str:
    lines = []
    for e in entries:
        due = f"  due {e['due']}" if e.get("due") else ""
        lines.append(f"{e['id']}  {e['status']:9} {e['label']:10} \"{e['text']}\"{due}  {e['source']}")
    return "\n".join(lines)
