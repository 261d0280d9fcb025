"""`souveraine status`."""

import click

from souveraine.cli.common import emit, json_option, pass_memory

BANDWIDTH = click.Choice(["high", "medium", "low", "minimal"])


@click.command(name="status")
@click.option("--bandwidth", type=BANDWIDTH, default="high", show_default=True,
              help="The viewport: high shows everything, medium the operational state, low only what is urgent, "
                   "minimal one line of presence.")
@json_option
@pass_memory
def status_cmd(memory, bandwidth, as_json):
    """The memory at a glance, as much as the viewport's bandwidth discloses.

    high: the unit and its phases, live forks and their divergence, the inbox's
    contents, the last N+1 pass, recent commits, journal, tiers, pressure, hooks and
    what needs attention. medium: the unit, live forks, the inbox's count, pressure,
    tiers, attention. low: urgent thoughts and urgent attention only. minimal: one
    line of presence.

    Example:

    \b
        souveraine status --bandwidth low
    """
    from souveraine.status import status

    emit(status(memory, bandwidth), as_json, render)


def render(data: dict) -> str:
    if "presence" in data:
        return data["line"]
    lines = []
    if "memory" in data:
        lines.append(f"memory     {data['memory']}")
    lines.append(f"identity   {data['identity'] or '(none yet)'}")
    lines.append(_phase(data))
    if (data.get("unit") or {}).get("chain"):
        from souveraine.sensorium.telemetry import chain_line

        lines.append(f"chain      {chain_line(data['unit']['chain'])}")
    if "forks" in data:
        lines += _block("forks", [_fork(f) for f in data["forks"]] or ["none running"])
    if "journal" in data:
        days, turns = data["journal"]["days"], data["journal"]["turns"]
        lines.append(f"journal    {days} day{'' if days == 1 else 's'}, {turns} turn{'' if turns == 1 else 's'}")
        lines.append(f"reflection {data['since_reflection']} messages since the last")
    if "memories" in data:
        lines.append("memories   " + ", ".join(f"{n} {tier}" for tier, n in data["memories"].items()))
    if "pending" in data:
        lines.append(f"inbox      {data['pending']} pending")
        lines += [f"           - [{i['urgency']}] {i['text']}" for i in data.get("inbox", [])]
    if "urgent" in data:
        lines += _block("urgent", [f"[{i['urgency']}] {i['text']}" for i in data["urgent"]] or ["nothing urgent waiting"])
    if "pressure" in data:
        p = data["pressure"]
        lines.append(f"pressure   {p['ratio']:.1%} of {p['model']}'s {p['context_limit']:,} tokens"
                     + (" (archive due)" if p["due"] else ""))
    if "hooks" in data:
        missing = [name for name, ok in data["hooks"].items() if not ok]
        lines.append("hooks      " + ("installed" if not missing else f"missing: {', '.join(missing)} (run 'souveraine hook install')"))
    if "n1" in data:
        lines.append("n+1        " + _n1(data["n1"]))
    if data.get("commits"):
        lines += _block("commits", [f"{c['sha']} {c['subject']} ({c['date'][:16]})" for c in data["commits"]])
    if data.get("attention") or data["bandwidth"] != "high":
        lines += _block("attention", [f"[{a['urgency']}] {a['what']} → {a['how']}" for a in data["attention"]]
                        or ["nothing needs attention"])
    return "\n".join(lines)


def _phase(data: dict) -> str:
    unit = data.get("unit")
    if not unit:
        return f"phase      {data['phase']}"
    retries = f" · back from review {unit['retries']} of {unit['max_retries']}" if unit["retries"] else ""
    goal = f" — {unit['goal']}" if unit.get("goal") else ""
    return f"phase      {unit['phase']} · unit {unit['unit']}{retries}{goal}"


def _fork(fork: dict) -> str:
    drift = ""
    if fork.get("divergence") is not None:
        drift = f", {fork['divergence']} of {fork['threshold']} lines" + (" — over" if fork.get("over") else "")
    return f"{fork['name']} ({fork['status']}{drift})" + (f" — {fork['task']}" if fork["task"] else "")


def _n1(n1: dict | None) -> str:
    if not n1:
        return "no turn persisted yet"
    said = f"{n1['sha']} {n1['subject']}" if n1["sha"] else "nothing committed yet"
    wrote = [p for p in n1["wrote"] if not p.startswith("journal/")]
    tail = f" → {', '.join(wrote)}" if wrote else ""
    spooled = f" ({n1['spooled']} waiting in the spool)" if n1["spooled"] else ""
    return said + tail + spooled


def _block(label: str, items: list[str]) -> list[str]:
    return [f"{label:<10} {items[0]}"] + [f"{'':<10} {item}" for item in items[1:]]
