"""`souveraine surface` and `souveraine inbox`: the nervous system."""

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory

BANDWIDTH = click.Choice(["high", "medium", "low", "minimal"])
URGENCY = click.Choice(["low", "medium", "high", "critical"])
QUEUE = click.Choice(["pending", "intrusive", "sent"])


@click.command(name="surface")
@click.option("--bandwidth", type=BANDWIDTH, default="high", show_default=True,
              help="The viewport: high shows any thought, medium medium and up, low only urgent ones, minimal only presence.")
@click.option("--peek", is_flag=True, help="Show what would surface; change nothing.")
@json_option
@pass_memory
def surface_cmd(memory, bandwidth, peek, as_json):
    """Surface the next thought: one per turn, every critical one at once.

    Prints [surfacing: urgency: text] lines and moves each thought pending →
    intrusive (this turn) → sent (logged with time and viewport). Around it, as the
    viewport allows: high lists what else waits ([inbox: N waiting]), medium counts
    it, low shows the urgent thought alone, minimal one presence line. While work is
    under way, high also shows the unit and its chain, the forks with their divergence,
    the last N+1 pass and the newest commits, medium the unit, the live forks and what
    needs attention. Prints nothing when nothing waits and nothing is under way.

    Example:

    \b
        souveraine surface --bandwidth low
    """
    from souveraine.tempos.surface import surface

    emit(surface(memory, bandwidth, peek, around=True).to_dict(), as_json, lambda data: "\n".join(data["shown"]))


@click.group(name="inbox", cls=DefaultGroup, default="list")
def inbox_cmd():
    """The inbox: thoughts waiting to surface (pending), surfacing (intrusive), delivered (sent).

    Example:

    \b
        souveraine inbox add "Call the plumber" --urgency high
    """


@inbox_cmd.command(name="list")
@click.option("--queue", "which", type=QUEUE, default="pending", show_default=True, help="Which queue to list.")
@json_option
@pass_memory
def inbox_list(memory, which, as_json):
    """List a queue; pending in the order it would surface (a dated item shows when it may).

    Example:

    \b
        souveraine inbox list --queue sent --json
    """
    from souveraine.tempos import inbox

    emit(inbox.items(memory, which), as_json, _render_items)


@inbox_cmd.command(name="add")
@click.argument("text")
@click.option("--urgency", type=URGENCY, default="medium", show_default=True, help="How urgently it should surface.")
@json_option
@pass_memory
def inbox_add(memory, text, urgency, as_json):
    """Queue a thought in inbox/pending.md (one commit).

    Example:

    \b
        souveraine inbox add "The deploy key expires Friday" --urgency critical
    """
    from souveraine.tempos import inbox

    emit(inbox.add(memory, text, urgency), as_json, lambda data: None)


def _render_items(items: list[dict]) -> str:
    lines = []
    for item in items:
        when = (item["at"] or "").replace("T", " ")
        where = f" [{item['viewport']}]" if item.get("viewport") else ""
        due = f" (waits until {item['due'].replace('T', ' ')})" if item.get("due") else ""
        lines.append(f"{item['id']}  {when:16}  {item['urgency']:8}{where}  {item['text']}{due}")
    return "\n".join(lines)
