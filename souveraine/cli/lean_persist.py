"""`souveraine persist`, what it does, and its lean path: an agent's turn kept without Click.

persist runs after every answer an agent gives, and importing Click was an eighth of its
cost. Its options are read here from a table that tests check against the Click command's
own (cli/persist.py, which calls ``persist`` below for the same work). What the table does
not cover — help, --flush, --retry, a repeated option, a value starting with '-', `--`, a
stray word, an output stream that is not UTF-8 — goes to Click before anything is read or
written. Once the lean path has taken the arguments it sees the command through, failures
included, reported as the Click root reports them (``cli.root.die``): it may have read stdin,
and an exchange it spooled must not be handed to persist a second time.
"""

import os
import sys

from souveraine.cli.lean import FLAG, ROOT, _Click, parse

PERSIST = {
    "--user": ("user_text", str), "--assistant": ("assistant_text", str), "--session": ("session", str),
    "--at": ("at_text", str), "--claude-code": ("claude_code", FLAG), "--no-commit": ("no_commit", FLAG),
    "--n1": ("n1", FLAG), "--no-n1": ("no_n1", FLAG), "--json": ("as_json", FLAG),
    "--memory": ("memory_path", str),
}
TO_CLICK = ("--flush", "--retry")   # rare: Click runs them


def run(args: list[str]) -> bool:
    """Run ``souveraine persist …`` here when the table covers ``args``; False when Click must."""
    try:
        root, rest = parse(args, ROOT, until_word=True)
        if rest[:1] != ["persist"]:
            return False
        options, words = parse(rest[1:], PERSIST)
    except _Click:
        return False
    if words or (options["n1"] and options["no_n1"]) or not _utf8(sys.stdout, sys.stderr):
        return False
    try:
        _run(root, options)
    except (Exception, KeyboardInterrupt) as exc:
        from souveraine.cli.root import die   # Click only now, to say what went wrong as the root says it

        die(exc, options["as_json"], root["debug"] or bool(os.environ.get("SOUVERAINE_DEBUG")))
    return True


def _run(root: dict, options: dict) -> None:
    from souveraine.cli.now import fix_now
    from souveraine.laws import inprocess
    from souveraine.store.memory import Memory

    fix_now(root["now"])
    inprocess.enable()
    memory = Memory.find(options["memory_path"] or root["memory_path"])
    n1 = True if options["n1"] else (False if options["no_n1"] else None)
    data, line = persist(memory, options["user_text"], options["assistant_text"], options["session"],
                         options["at_text"], options["claude_code"], options["no_commit"], n1, options["as_json"])
    if options["as_json"]:
        _echo(sys.stdout, _json(data))
    if line:
        _echo(sys.stderr, line)


def persist(memory, user_text, assistant_text, session, at_text, claude_code, no_commit, n1,
            as_json) -> tuple[dict, str | None]:
    """What `souveraine persist` does with an exchange: its result, and the line to say on stderr."""
    from souveraine.errors import SouveraineError, UsageError
    from souveraine.tempos import persist as tempo

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
    data = result.to_dict()
    return data, (kept_line(data, as_json) if not no_commit else None)


def kept_line(data: dict, as_json: bool) -> str | None:
    """The one line a person sees when the exchange waits in the spool."""
    from souveraine.tempos.persist import KEPT

    return f"souveraine: {KEPT}: {data['reason']}" if data.get("kept") and not as_json else None


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

    stream = sys.stdin
    if stream is None or stream.isatty():
        raise UsageError("nothing to persist: give --assistant TEXT (and --user TEXT), JSON on stdin, or --claude-code")
    from souveraine.store import given

    return given.stdin()


def _json(data: dict) -> str:
    import json

    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def _utf8(*streams) -> bool:
    return all(s is not None and (getattr(s, "encoding", "") or "").lower().replace("-", "") == "utf8" for s in streams)


def _echo(stream, text: str) -> None:
    """As click.echo writes it: a terminal's escape codes are Click's to keep or strip."""
    if "\x1b" in text:
        import click

        click.echo(text, err=stream is sys.stderr)
        return
    stream.write(text + "\n")
    stream.flush()
