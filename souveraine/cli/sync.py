"""`souveraine sync`."""

import sys

import click

from souveraine.cli.common import emit, json_option, pass_memory, say


@click.command(name="sync")
@click.argument("remote", required=False)
@click.option("--continue", "resume", is_flag=True,
              help="Finish a sync that stopped on a conflict, once its paths are resolved: judge, commit, push.")
@click.option("--abort", is_flag=True, help="Give up a sync that stopped on a conflict: the memory as it was before it.")
@click.option("--no-stop", "no_stop", is_flag=True,
              help="On a conflict, put the memory back as it was instead of stopping (for agents and cron).")
@json_option
@pass_memory
def sync_cmd(memory, remote, resume, abort, no_stop, as_json):
    """Share the memory with a git remote: fetch, merge, judge by the laws, push.

    REMOTE is a git remote's name (default: the branch's upstream, else origin). Journal
    days, the inner voice and every append-only file merge by themselves, both sides'
    entries kept in time order. The other side's commits and the merge are judged by the
    laws before anything is kept; when the remote moved meanwhile, sync goes round again.
    Offline, it says so and exits 0: nothing is lost, the next sync pushes. A note changed
    on both sides (the same person note) stops the sync with the merge under way and its
    paths listed: resolve them, then --continue, or --abort (--no-stop puts the memory back
    at once instead, for runs nobody watches). One line per outcome; exit 0
    up to date, merged, pushed or offline; 1 stopped on a conflict or refused. See docs/SYNC.md.

    Example:

    \b
        souveraine sync
        souveraine sync laptop --json
        souveraine sync --continue
    """
    from souveraine.errors import UsageError
    from souveraine.sync import sync as flow

    if resume and abort:
        raise UsageError("--continue and --abort exclude each other; give one")
    if abort:
        result = flow.abort(memory)
    elif resume:
        result = flow.resume(memory)
    else:
        result = flow.sync(memory, remote, stop=not no_stop)
    emit(result.to_dict(), as_json, lambda data: None)
    if not as_json:
        say(result.line())
        for warning in result.warnings:
            say(f"sync: {warning}")
    if not result.ok:
        sys.exit(1)
