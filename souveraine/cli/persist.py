"""`souveraine persist`."""

import click

from souveraine.cli.common import emit, json_option, pass_memory


@click.command(name="persist")
@click.option("--user", "user_text", metavar="TEXT", help="What the user said.")
@click.option("--assistant", "assistant_text", metavar="TEXT", help="What the assistant answered.")
@click.option("--session", metavar="ID", help="The conversation's id, recorded on each turn.")
@click.option("--at", "at_text", metavar="TIME", help="When the answer was given (ISO 8601; default: now).")
@click.option("--claude-code", "claude_code", is_flag=True,
              help="Read a Claude Code Stop hook's payload on stdin and the transcript it names.")
@click.option("--no-commit", is_flag=True, help="Write the files but do not commit: the next persist (or --flush) commits them.")
@click.option("--flush", is_flag=True, help="Only commit what earlier --no-commit calls wrote.")
@click.option("--n1/--no-n1", default=None,
              help="Run (or skip) the subconscious whatever [subconscious] n1_trigger says.")
@json_option
@pass_memory
def persist_cmd(memory, user_text, assistant_text, session, at_text, claude_code, no_commit, flush, n1, as_json):
    """Journal one exchange, then let the N+1 subconscious work on it — one commit.

    The exchange comes from --user/--assistant, from a JSON object on stdin
    ({"user", "assistant", "session", "at", "tool_calls"}), or, with --claude-code,
    from a Claude Code Stop hook. Unkept promises to save are kept; other promises go
    to the ledger and the inbox; missed questions become inner-voice lines. Quiet on
    success; --json reports everything, including reflection_due and archive_due.

    Example:

        souveraine persist --user "My sister is Lea." --assistant "I'll remember that."
        echo '{"user": "Hi", "assistant": "Hello!"}' | souveraine persist --json
    """
    from souveraine.errors import SouveraineError, UsageError
    from souveraine.tempos import persist as tempo

    if flush:
        emit(tempo.flush(memory), as_json, lambda data: None)
        return
    try:
        exchange = _exchange(user_text, assistant_text, session, at_text, claude_code)
        if claude_code:
            from souveraine.agents.receipts import persist_once

            result = persist_once(memory, exchange, commit=not no_commit, n1=n1)
        else:
            result = tempo.persist(memory, exchange, commit=not no_commit, n1=n1)
    except UsageError as exc:
        if claude_code:
            # Exit 2 from a Stop hook would block Claude from stopping; a bad payload is our problem, not its.
            raise SouveraineError(str(exc), code=exc.code) from None
        raise
    emit(result.to_dict(), as_json, lambda data: None)


def _exchange(user_text, assistant_text, session, at_text, claude_code):
    from souveraine.errors import UsageError
    from souveraine.tempos import transcripts

    given = user_text is not None or assistant_text is not None
    if claude_code:
        if given:
            raise UsageError("--claude-code reads the exchange from the hook's payload; drop --user/--assistant")
        return transcripts.from_claude_code(_stdin())
    if given:
        if assistant_text is None:
            raise UsageError("--user needs --assistant TEXT: persist journals an answer with its question")
        return transcripts.Exchange(assistant=assistant_text, user=user_text, session=session,
                                    at=transcripts.moment(at_text, "--at")).check()
    exchange = transcripts.from_json(_stdin())
    if session or at_text:
        from dataclasses import replace

        exchange = replace(exchange, session=session or exchange.session,
                           at=transcripts.moment(at_text, "--at") or exchange.at).check()
    return exchange


def _stdin() -> str:
    from souveraine.errors import UsageError

    import sys

    stream = sys.stdin
    if stream is None or stream.isatty():
        raise UsageError("nothing to persist: give --assistant TEXT (and --user TEXT), JSON on stdin, or --claude-code")
    return stream.read()
