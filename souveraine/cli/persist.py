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
@click.option("--no-commit", is_flag=True,
              help="Keep the exchange in the spool (durable) without committing: the next persist (or --flush) commits it.")
@click.option("--flush", is_flag=True, help="Only journal and commit what waits in the spool.")
@click.option("--retry", is_flag=True, help="With --flush: try again the exchanges that failed twice (doctor lists them).")
@click.option("--n1/--no-n1", default=None,
              help="Run (or skip) the subconscious whatever [subconscious] n1_trigger says.")
@json_option
@pass_memory
def persist_cmd(memory, user_text, assistant_text, session, at_text, claude_code, no_commit, flush, retry, n1, as_json):
    """Journal one exchange, then let the N+1 subconscious work on it — one commit.

    The exchange comes from --user/--assistant, from a JSON object on stdin
    ({"user", "assistant", "session", "at", "tool_calls"}), or, with --claude-code,
    from a Claude Code Stop hook. Unkept promises to save are kept; other promises go
    to the ledger and the inbox; missed questions become inner-voice lines. Quiet on
    success; --json reports everything, including reflection_due and archive_due.

    The exchange is on disk (fsynced, in .souveraine/spool/) before anything can fail
    or wait. When it cannot be committed now — the memory busy past [git] lock_timeout,
    git's index locked, a merge in progress — persist still exits 0, with one line
    "kept, not yet committed: why"; the next persist, --flush, doctor --fix or the
    scheduler commits it.

    Example:

    \b
        souveraine persist --user "My sister is Lea." --assistant "I'll remember that."
        echo '{"user": "Hi", "assistant": "Hello!"}' | souveraine persist --json
    """
    from souveraine.errors import SouveraineError, UsageError
    from souveraine.tempos import persist as tempo

    if flush:
        done = tempo.flush(memory, retry=retry)
        emit(done, as_json, lambda data: None)
        _say_kept(done, as_json)
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
    if not no_commit:
        _say_kept(result.to_dict(), as_json)


def _say_kept(data: dict, as_json: bool) -> None:
    from souveraine.cli.common import say
    from souveraine.tempos.persist import KEPT

    if data.get("kept") and not as_json:
        say(f"souveraine: {KEPT}: {data['reason']}")


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
    from souveraine.store import given

    return given.stdin()
