"""`souveraine status`."""

import click

from souveraine.cli.common import emit, json_option, pass_memory

BANDWIDTH = click.Choice(["high", "medium", "low", "minimal"])


@click.command(name="status")
@click.option("--bandwidth", type=BANDWIDTH, default="high", show_default=True,
              help="How much to show: minimal prints one word of presence.")
@json_option
@pass_memory
def status_cmd(memory, bandwidth, as_json):
    """The memory at a glance: identity, phase, journal, tiers, inbox, pressure, hooks.

    Example:

    \b
        souveraine status --bandwidth low
    """
    from souveraine.status import status

    emit(status(memory, bandwidth), as_json, render)


def render(data: dict) -> str:
    if "presence" in data:
        return data["presence"]
    lines = [
        f"identity   {data['identity'] or '(none yet)'}",
        f"phase      {data['phase']}",
    ]
    if "journal" in data:
        days, turns = data["journal"]["days"], data["journal"]["turns"]
        lines.append(f"journal    {days} day{'' if days == 1 else 's'}, {turns} turn{'' if turns == 1 else 's'}")
        tiers = data["memories"]
        lines.append("memories   " + ", ".join(f"{n} {tier}" for tier, n in tiers.items()))
        lines.append(f"reflection {data['since_reflection']} messages since the last")
    lines.append(f"inbox      {data['pending']} pending")
    p = data["pressure"]
    lines.append(f"pressure   {p['ratio']:.1%} of {p['model']}'s {p['context_limit']:,} tokens"
                 + (" (archive due)" if p["due"] else ""))
    if "hooks" in data:
        missing = [name for name, ok in data["hooks"].items() if not ok]
        lines.append("hooks      " + ("installed" if not missing else f"missing: {', '.join(missing)} (run 'souveraine hook install')"))
    if data.get("last_commit"):
        c = data["last_commit"]
        lines.append(f"last       {c['sha']} {c['subject']} ({c['date']})")
    if "memory" in data:
        lines.insert(0, f"memory     {data['memory']}")
    return "\n".join(lines)
