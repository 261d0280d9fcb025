"""The lean path: a plain `souveraine recall` run without importing Click.

Importing Click costs about a quarter of a recall from the command line (its types, inspect,
typing): more than the search itself. An agent calls recall as a tool many times a session,
so its arguments are read here from a table of recall's options, which tests check against
the Click command's own (names, types, bounds, defaults), and its output is written as Click
writes it. Whatever the table does not cover — help, --version, an option it does not know or
a value Click would have to judge, a repeated option, `--`, a word starting with '-', an
error of any kind, text Click would strip of terminal codes, an output that is not UTF-8 —
is left to Click, which does it all again from the start: a recall changes nothing but its
cache, so running it twice is safe. So is a terminal's stderr, where Click draws a progress
bar: the lean path serves programs, which read a pipe.
"""

import sys

FLAG = "flag"
TIERS = ("episodic", "foundational", "constitutive")

# option -> (parameter name, kind): FLAG, str, a tuple of choices, or an int range (low, high)
ROOT = {"--memory": ("memory_path", str), "--now": ("now", str), "--debug": ("debug", FLAG)}
RECALL = {
    "--since": ("since", str), "--until": ("until", str), "--tier": ("tier", TIERS), "--in": ("within", str),
    "--person": ("person", str), "--limit": ("limit", range(1, 1001)), "--private": ("private", FLAG),
    "--no-recency": ("no_recency", FLAG), "--now": ("now", str), "--context": ("context", range(0, 21)),
    "--all": ("every", FLAG), "--json": ("as_json", FLAG), "--memory": ("memory_path", str),
    "--semantic": ("semantic", FLAG), "--no-semantic": ("no_semantic", FLAG),
}
DEFAULTS = {"limit": 10, "context": 0}      # the rest: False for a flag, else None
# Recall's options the table leaves to Click: given, Click runs the command.
TO_CLICK = ()


class _Click(Exception):
    """Leave this to Click."""


def run(args: list[str]) -> bool:
    """Run ``args`` here when the lean path covers them; False when Click must."""
    try:
        root, rest = parse(args, ROOT, until_word=True)
        if rest[:1] != ["recall"]:
            return False
        options, words = parse(rest[1:], RECALL)
        _recall(root, options, words)
    except _Click:
        return False
    except KeyboardInterrupt:
        _write(sys.stderr, "souveraine: interrupted; nothing half-written was kept")
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
    except Exception:   # an error of any kind: Click says it, in its one way
        return False
    return True


def parse(args: list[str], table: dict, until_word: bool = False) -> tuple[dict, list[str]]:
    """The options of ``table`` in ``args`` and the words among them (or, with ``until_word``, the
    arguments from the first word on); raises _Click for anything the table does not cover."""
    options = {name: (False if kind == FLAG else DEFAULTS.get(name)) for name, kind in table.values()}
    seen, words = set(), []
    pending = list(args)
    while pending:
        arg = pending.pop(0)
        if not arg.startswith("-"):
            if until_word:
                return options, [arg, *pending]
            words.append(arg)
            continue
        option, has_value, value = arg.partition("=")
        if option not in table or option in seen:
            raise _Click
        seen.add(option)
        name, kind = table[option]
        if kind == FLAG:
            if has_value:
                raise _Click
            options[name] = True
            continue
        if not has_value:
            if not pending or pending[0].startswith("-"):
                raise _Click
            value = pending.pop(0)
        options[name] = _value(value, kind)
    return options, words


def _value(text: str, kind):
    if kind is str:
        return text
    if isinstance(kind, tuple):
        if text not in kind:
            raise _Click
        return text
    if not (text.isascii() and text.isdigit()) or int(text) not in kind:
        raise _Click
    return int(text)


def _recall(root: dict, options: dict, words: list[str]) -> None:
    """What `souveraine recall` does (cli/recall.py), its output written as click.echo writes it."""
    import json

    for stream in (sys.stdout, sys.stderr):
        if stream is None or (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
            raise _Click
    if sys.stderr.isatty():
        raise _Click            # a person at a terminal: Click's progress bar (sentence vectors) is theirs
    if not words and not any(options[k] for k in ("since", "until", "tier", "within", "person")):
        raise _Click                                    # a usage error: Click's to say
    if options["semantic"] and options["no_semantic"]:
        raise _Click                                    # both: Click's rule (the last wins) is Click's
    from souveraine.cli.hits import render_hits
    from souveraine.cli.now import fix_now
    from souveraine.recall import warm
    from souveraine.store.memory import Memory

    fix_now(root["now"])
    memory = Memory.find(options["memory_path"] or root["memory_path"])
    asked = dict(since=options["since"], until=options["until"], tier=options["tier"], within=options["within"],
                 person=options["person"], limit=options["limit"], private=options["private"],
                 recency=not options["no_recency"], now=options["now"], context=options["context"],
                 every=options["every"], semantic=True if options["semantic"] else False if options["no_semantic"] else None)
    result = warm.recall(memory, " ".join(words), **asked)      # a warm server's answer, if one runs
    if result is None:
        from souveraine.laws import inprocess
        from souveraine.recall.search import recall

        inprocess.enable()
        result = recall(memory, " ".join(words), **asked)
    told = []
    if result.readings and not options["as_json"]:
        for reading in result.readings:
            span = reading.span
            told.append(f"dates: {span.since or '…'} to {span.until or '…'} (from {reading.phrase!r}"
                        f"{'; ' + reading.note if reading.note else ''})")
    hits = [hit.to_dict() for hit in result.hits]
    shown = (json.dumps(hits, indent=2, ensure_ascii=False, default=str) if options["as_json"]
             else render_hits(hits).rstrip("\n"))
    after = ["nothing found"] if not result.hits and not options["as_json"] else []
    if any("\x1b" in text for text in (shown, *told, *after)):
        raise _Click                                    # terminal codes, which Click strips off a pipe
    for line in told:
        _write(sys.stderr, line)
    if shown:
        _write(sys.stdout, shown)
    for line in after:
        _write(sys.stderr, line)


def _write(stream, text: str) -> None:
    stream.write(text + "\n")
    stream.flush()

