"""`souveraine wake`: the context document for a session's start."""

import click

from souveraine.cli.common import emit, pass_memory

BANDWIDTH = click.Choice(["high", "medium", "low", "minimal"])


@click.command(name="wake")
@click.option("--identity", "handle", metavar="HANDLE", help="Whose wake (default: [project] identity, else the only one).")
@click.option("--model", metavar="NAME", help="The [models.NAME] whose context it must fit (default: [project] model).")
@click.option("--bandwidth", type=BANDWIDTH, default="high", show_default=True,
              help="The viewport: below high, private memories and never_share rules stay out; minimal is the smallest.")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True,
              help="Markdown for a model's context, or JSON (the same as --json).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs instead of Markdown.")
@click.option("--budget", "budget_tokens", type=int, metavar="TOKENS",
              help="The token budget (default: the model's context_limit × wake_share).")
@click.option("--max-chars", type=click.IntRange(1), metavar="N",
              help="Also keep the Markdown within N characters (an agent that cuts what a hook prints: "
                   "Claude Code keeps 10,000); parts go in the same order as over the budget.")
@click.option("--shared", is_flag=True, help="A wake others will read: no private memory, no never_share content.")
@click.option("--serve", is_flag=True,
              help="Then start the warm recall server in the background (souveraine serve), where [recall] "
                   "semantic can use sentence vectors: the session's first recall is served warm.")
@pass_memory
def wake_cmd(memory, handle, model, bandwidth, fmt, as_json, budget_tokens, max_chars, shared, serve):
    """Write the wake: who you are, what shaped you, what to know now, where the rest is.

    In this order: the effective expression, the memories that shaped you, the pinned
    system/ files, the synthesized essence, the inner voice's tail, what surfaces now,
    recent memory and totals, and what can be loaded on demand. Over budget (or over
    --max-chars), parts are left out in a fixed order and the document says how to load
    them. The same memory gives the same bytes. --serve, for a session-start hook, then
    starts the warm recall server in the background when recall can use sentence vectors
    and none runs, without waiting for it or printing anything.

    Example:

    \b
        souveraine wake > /tmp/wake.md
        souveraine wake --model small --bandwidth low --shared
        souveraine wake --max-chars 10000
        souveraine wake --max-chars 9500 --serve
        souveraine wake --json | jq '.budget'
    """
    from souveraine.wake import wake

    result = wake(memory, identity=handle, model=model, bandwidth=bandwidth, budget_tokens=budget_tokens, shared=shared,
                  max_chars=max_chars)
    if as_json or fmt == "json":
        emit(result.to_dict(), True)
    else:
        click.echo(result.markdown(), nl=False)
    if serve:
        import sys

        from souveraine.recall import warm

        sys.stdout.flush()          # the wake is whole before anything else starts
        warm.ahead(memory)
