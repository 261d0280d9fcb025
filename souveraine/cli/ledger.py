"""`souveraine ledger`."""

import click

from souveraine.cli.common import emit, json_option, pass_memory

KIND = click.Choice(["commitments", "assumptions", "patterns", "drift",
                     "commitment", "assumption", "pattern"])


@click.command(name="ledger")
@click.argument("kind", required=False, type=KIND)
@click.option("--open", "open_only", is_flag=True, help="Only entries still open.")
@json_option
@pass_memory
def ledger_cmd(memory, kind, open_only, as_json):
    """The ledger: commitments, assumptions, patterns and drift, with their source turns.

    KIND is one of the four (default: all). Each entry shows its id, status, label,
    words and the turn it came from.

    Example:

    \b
        souveraine ledger commitments --open
    """
    from souveraine.tempos import ledger

    emit([e.to_dict() for e in ledger.entries(memory, kind, open_only)], as_json, _render)


def _render(entries: list[dict]) -> str:
    return "\n".join(f"{e['id']}  {e['status']:9} {e['label']:10} \"{e['text']}\"  {e['source']}" for e in entries)
