"""`souveraine learnings` and `souveraine refresh`: the slow care of the operational rhythm."""

import click

from souveraine.cli.common import emit, json_option, pass_memory


@click.command(name="learnings")
@click.option("--min-reports", type=click.IntRange(2), default=2, show_default=True,
              help="In how many reports a point must come back to be a lesson.")
@json_option
@pass_memory
def learnings_cmd(memory, min_reports, as_json):
    """Consolidate what the unit reports keep saying into system/project/learnings.md.

    A point (a sentence of a report's prose) that comes back in several reports of
    reference/reports/ becomes one line, citing every report that said it; a lesson
    already there is not written twice. One commit, or none when nothing is new. Runs
    monthly on the schedule ([schedule] learnings).

    Example:

        souveraine learnings --json
    """
    from souveraine.care.learnings import consolidate

    emit(consolidate(memory, min_reports=min_reports), as_json, _render_learnings)


def _render_learnings(result: dict) -> str:
    return "\n".join(result["added"])


@click.command(name="refresh")
@json_option
@pass_memory
def refresh_cmd(memory, as_json):
    """The identity refresh: doctor's audit and a thought asking 'is this still me?'.

    Queues a low-urgency inbox item asking the being to re-read its persona, listing
    what changed since the last refresh — elevations, drift-ledger entries, corrections,
    new people — each linked; doctor's errors, if any, as a high one. One commit. Runs
    quarterly on the schedule ([schedule] refresh).

    Example:

        souveraine refresh
    """
    from souveraine.care.refresh import refresh

    emit(refresh(memory), as_json, lambda result: result["thought"])
