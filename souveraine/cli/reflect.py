"""`souveraine reflect` and `souveraine model`."""

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory, say


@click.command(name="reflect")
@click.option("--force", is_flag=True, help="Witness now, however few messages came since the last witness.")
@click.option("--extractive", is_flag=True, help="Use the extractive method even when a model endpoint is configured.")
@json_option
@pass_memory
def reflect_cmd(memory, force, extractive, as_json):
    """Witness the turns since the last witness: the Fold, the Chain, the Flame, the Anchor.

    Appends one `reflection` entry to today's journal, each element citing its turns,
    when [reflection] message_interval messages came since the last one (or with
    --force). With [inference] endpoint set, a local model writes the Fold, the Chain
    and the Anchor; if it fails, the command fails (use --extractive to go on without).

    Example:

    \b
        souveraine reflect --force
    """
    from souveraine.tempos import reflect

    result = reflect.run(memory, force=force, extractive_only=extractive)
    if not result["reflected"] and not as_json:
        say(result["reason"])
    emit(result, as_json, _render)


def _render(result: dict) -> str | None:
    if not result["reflected"]:
        return None
    flame = ", ".join(result["flame"]) or "nothing new"
    return f"witnessed {result['turns']} turns in {result['link']} (flame: {flame})"


@click.group(name="model", cls=DefaultGroup, default="check")
def model_cmd():
    """The local model endpoint reflect and archive ask, if one is configured.

    Run bare, it checks the endpoint.

    Example:

    \b
        souveraine model
    """


@model_cmd.command(name="check")
@json_option
@pass_memory
def model_check(memory, as_json):
    """Send each task's model a prompt as large as the task's largest, and report.

    The prompt is sized from [inference] context, as reflect's and archive's are, so a
    server started with too small a context fails here, not in the middle of a tempo.
    Exits 1 when an endpoint is down, too slow, refuses the prompt, or answers something
    that is not a chat completion. With no endpoint, reports that the extractive methods
    are in use.

    Example:

    \b
        souveraine model check
    """
    from souveraine.inference import client

    rows = client.check(memory.config)
    emit(rows, as_json, _render_check)
    if not all(row["ok"] for row in rows):
        raise SystemExit(1)  # the rows above say what failed; click's Exit would be swallowed


def _render_check(rows: list[dict]) -> str:
    lines = []
    for row in rows:
        if row["method"] == "extractive":
            lines.append(f"{row['task']:<11} no endpoint: the extractive method")
        elif row["ok"]:
            lines.append(f"{row['task']:<11} {row['model']} at {row['endpoint']}: answered in {row['seconds']:.2f} s "
                         f"(a prompt of {row['prompt_chars']:,} characters, max_tokens {row['max_tokens']})")
        else:
            lines.append(f"{row['task']:<11} {row['model']}: {row['error']}")
    return "\n".join(lines)
