"""`souveraine persist` through Click: its options and help (the work, and a lean path without Click,
in cli/lean_persist.py)."""

import click

from souveraine.cli.common import emit, json_option, pass_memory, say


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
    from souveraine.cli import lean_persist

    if flush:
        from souveraine.tempos import persist as tempo

        done = tempo.flush(memory, retry=retry)
        emit(done, as_json, lambda data: None)
        line = lean_persist.kept_line(done, as_json)
    else:
        data, line = lean_persist.persist(memory, user_text, assistant_text, session, at_text, claude_code,
                                          no_commit, n1, as_json)
        emit(data, as_json, lambda data: None)
    if line:
        say(line)
