"""`souveraine archive`."""

import click

from souveraine.cli.common import emit, json_option, pass_memory, progress, say


@click.command(name="archive")
@click.option("--force", is_flag=True, help="Synthesize now, whatever the pressure.")
@click.option("--dry-run", is_flag=True, help="Show the synthesis and the pressure it would leave; write nothing.")
@click.option("--model", "model", metavar="NAME", default=None,
              help="The [models.NAME] whose context limit is measured (default: [project] model).")
@click.option("--extractive", is_flag=True, help="Use the extractive method even when a model endpoint is configured.")
@json_option
@pass_memory
def archive_cmd(memory, force, dry_run, model, extractive, as_json):
    """Compress the journal since the last synthesis into system/synthesized/.

    Runs when context pressure (what wake pins plus the unsynthesized journal, against
    the model's context_limit) reaches the threshold, every [archivist] interval
    messages, or with --force. The superseded synthesis moves to archive/; the raw
    journal is never changed. Reports the pressure before and after.

    Example:

    \b
        souveraine archive --dry-run --model local
    """
    from souveraine.tempos import archive

    result = archive.run(memory, force=force, dry_run=dry_run, model=model, extractive_only=extractive,
                         progress=progress("archiving", not as_json))
    if "reason" in result and not as_json:
        say(result["reason"])
    emit(result, as_json, _render)


def _render(result: dict) -> str | None:
    if "reason" in result:
        return None
    before, after = result["pressure"]["before"], result["pressure"]["after"]
    verb = "would synthesize" if result["dry_run"] else "synthesized"
    lines = [f"{verb} {result['turns']} turns ({result['from']} to {result['through']}) into {result['path']}",
             *(f"{'would move' if result['dry_run'] else 'moved'} {m['from']} to {m['to']}" for m in result["moved"]),
             f"pressure {before['ratio']:.1%} → {after['ratio']:.1%} of {before['model']}'s {before['context_limit']:,} tokens"]
    if result["dry_run"]:
        lines += ["", result["synthesis"]]
    return "\n".join(lines)
