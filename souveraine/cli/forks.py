"""`souveraine fork`, `state`, `unit` and `triage`: parallel selves and the workflow."""

from pathlib import Path

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory, say


def _text_or_file(value: str) -> str:
    """TEXT|FILE: '-' reads stdin, an existing file is read, anything else is the text itself."""
    from souveraine.store import given

    if value == "-":
        return given.stdin()
    path = Path(value)
    if len(value) < 4096 and "\n" not in value and path.is_file():
        return given.read(value, "the file")
    return given.text(value, "the text")


def _files(values: tuple[str, ...]) -> list[str]:
    return [part for value in values for part in value.split(",")]


FILES_HELP = "Files touched, comma-separated or repeated; they add to the unit's files_touched."


# -- fork ---------------------------------------------------------------------------------


@click.group(name="fork", cls=DefaultGroup, default="list")
def fork_cmd():
    """Parallel selves: forks of the memory on their own branch.

    A fork is a worktree of the memory on branch fork/NAME. Start one when work truly runs in parallel; it returns a summary, then is
    integrated (merged or cherry-picked back) or closed. Bare 'fork' lists them.

    Example:

    \b
        souveraine fork start research --task "compare the ranking formulas"
    """


@fork_cmd.command(name="start")
@click.argument("name")
@click.option("--task", default="", metavar="TEXT", help="What the fork is for; kept in reference/forks/NAME.md.")
@json_option
@pass_memory
def fork_start(memory, name, task, as_json):
    """Start fork NAME in a worktree of its own; prints its path.

    The fork carries the parent's state: it starts from the parent's last commit.

    Example:

    \b
        cd "$(souveraine fork start research --task 'compare the ranking formulas')"
    """
    from souveraine.forks import fork

    result = fork.start(memory, name, task=task)
    if not as_json:
        say(f"started fork {result['name']} on branch {result['branch']}")
    emit(result if as_json else result["worktree"], as_json)


@fork_cmd.command(name="list")
@json_option
@pass_memory
def fork_list(memory, as_json):
    """Each fork, its status and its divergence against the threshold.

    Example:

    \b
        souveraine fork list --json
    """
    from souveraine.forks import fork

    emit(fork.list_forks(memory), as_json, _render_forks)


def _render_forks(forks: list[dict]) -> str:
    lines = []
    for f in forks:
        drift = f"{f['divergence']}/{f['threshold']}" if f["divergence"] is not None else "-"
        extra = f" {f['commits']} commits" if "commits" in f else ""
        dirty = " (uncommitted changes)" if f.get("dirty") else ""
        over = " OVER" if f["over"] else ""
        lines.append(f"{f['name']:<16} {f['status']:<10} divergence {drift}{over}{extra}{dirty}  {f['task']}".rstrip())
    return "\n".join(lines)


@fork_cmd.command(name="return")
@click.argument("name")
@click.option("--summary", required=True, metavar="TEXT|FILE", help="What the fork found: text, a file, or - for stdin.")
@json_option
@pass_memory
def fork_return(memory, name, summary, as_json):
    """Record fork NAME's return: its summary and findings.

    The findings are the fork's commits and the files it changed. Works from the
    parent or from inside the fork; the record lives in the parent.

    Example:

    \b
        souveraine fork return research --summary findings.md
    """
    from souveraine.forks import fork

    result = fork.return_fork(memory, name, _text_or_file(summary))
    if as_json:
        emit(result, True)
    else:
        say(f"fork {name} returned: {result['commits']} commits, divergence {result['divergence']['lines']} lines")


@fork_cmd.command(name="integrate")
@click.argument("name")
@click.option("--pick", "picks", multiple=True, metavar="COMMIT", help="Cherry-pick only this commit of the fork (repeatable).")
@json_option
@pass_memory
def fork_integrate(memory, name, picks, as_json):
    """Merge fork NAME back, or --pick some of its commits.

    Only when its divergence — the changed lines in system/ and identities/ since the
    fork point — is within [forks] divergence_threshold; over it, the fork is closed
    instead (exit 1).
    Either way the fork's worktree and branch are removed; its record stays.

    Example:

    \b
        souveraine fork integrate research --pick 3f2a9c1
    """
    from souveraine.forks import fork

    result = fork.integrate(memory, name, picks=list(picks))
    if as_json:
        emit(result, True)
    else:
        say(f"integrated fork {name}: {result['commits']} commits, divergence {result['divergence']}"
            f"/{result['threshold']} lines, commit {result['commit'][:12]}")


@fork_cmd.command(name="close")
@click.argument("name")
@click.option("--reason", default="", metavar="TEXT", help="Why the fork ends unintegrated; kept in its record.")
@json_option
@pass_memory
def fork_close(memory, name, reason, as_json):
    """Close fork NAME without integrating it.

    Its worktree and branch are removed; its record stays in reference/forks/.

    Example:

    \b
        souveraine fork close research --reason "superseded by the index work"
    """
    from souveraine.forks import fork

    result = fork.close(memory, name, reason=reason)
    if as_json:
        emit(result, True)
    else:
        say(f"closed fork {name}; its record is {result['record']}")


# -- state --------------------------------------------------------------------------------


@click.group(name="state", cls=DefaultGroup, default="show")
def state_cmd():
    """Workflow state: phase, unit and files touched.

    It lives in system/state.md, pinned in every wake: paths only, never content.

    Bare 'state' shows it.

    Example:

    \b
        souveraine state set --phase DEVELOP --files src/app.py
    """


@state_cmd.command(name="show")
@json_option
@pass_memory
def state_show(memory, as_json):
    """Show the phase, the unit and the files touched.

    Example:

    \b
        souveraine state show --json
    """
    from souveraine.forks import state

    emit(state.read(memory).to_dict(), as_json, _render_state)


def _render_state(data: dict) -> str:
    lines = [f"phase  {data['phase']}", f"unit   {data['unit'] or '-'}"]
    lines += [f"files  {path}" for path in data["files_touched"]] or ["files  -"]
    return "\n".join(lines)


@state_cmd.command(name="set")
@click.option("--phase", default=None, metavar="PHASE", help="idle, INIT, ORIENT, DEVELOP, REVIEW, UPDATE-DOCS or REPORT.")
@click.option("--unit", default=None, metavar="NAME", help="The unit of work; a new unit starts with no files touched.")
@click.option("--files", multiple=True, metavar="A,B", help=FILES_HELP)
@click.option("--replace", is_flag=True, help="Replace files_touched instead of adding to it.")
@json_option
@pass_memory
def state_set(memory, phase, unit, files, replace, as_json):
    """Set the phase or unit, and add files touched.

    Example:

    \b
        souveraine state set --phase REVIEW --unit login --files src/auth.py,tests/test_auth.py
    """
    from souveraine.forks import state

    result = state.set_state(memory, phase=phase, unit=unit, files=_files(files), replace_files=replace)
    if as_json:
        emit(result, True)


# -- unit ---------------------------------------------------------------------------------


@click.group(name="unit")
def unit_cmd():
    """The six-phase workflow, each phase's output kept on disk.

    INIT, ORIENT, DEVELOP, REVIEW, UPDATE-DOCS, REPORT. Each phase leaves its output in reference/work/<unit>/ before the next begins;
    the report is appended to reference/reports/<unit>.md.

    Example:

    \b
        souveraine unit start login --goal "users can sign in with a passkey"
    """


@unit_cmd.command(name="start")
@click.argument("name")
@click.option("--goal", default="", metavar="TEXT|FILE", help="What the unit is for: INIT's output.")
@json_option
@pass_memory
def unit_start(memory, name, goal, as_json):
    """Start unit NAME in phase INIT, with no files touched yet.

    Example:

    \b
        souveraine unit start login --goal "users can sign in with a passkey"
    """
    from souveraine.forks import unit

    result = unit.start(memory, name, goal=_text_or_file(goal) if goal else "")
    if as_json:
        emit(result, True)


@unit_cmd.command(name="phase")
@click.argument("phase")
@click.option("--output", default="", metavar="TEXT|FILE",
              help="The output of the phase you are leaving (or continuing), appended to its file.")
@click.option("--files", multiple=True, metavar="A,B", help=FILES_HELP)
@json_option
@pass_memory
def unit_phase(memory, phase, output, files, as_json):
    """Record the current phase's output, then enter PHASE.

    The current phase must have left an output (--output or an earlier one) before
    the next begins. Stay in a phase to add output or files; go back to an earlier
    phase when review finds work (REVIEW → DEVELOP at most twice a unit); never skip
    ahead. Entering ORIENT lists the decisions (reference/decisions/) the goal touches.

    Example:

    \b
        souveraine unit phase REVIEW --output develop-notes.md --files src/auth.py
    """
    from souveraine.forks import unit

    result = unit.phase(memory, phase, files=_files(files), output=_text_or_file(output) if output else "")
    if as_json:
        emit(result, True)
    elif result.get("decisions"):
        emit(result, False, _render_decisions)


def _render_decisions(data: dict) -> str:
    lines = ["Decisions to read before the work (reference/decisions/):"]
    for adr in data["decisions"]:
        status = f" [{adr['status']}]" if adr["status"] else ""
        said = f" — {adr['description']}" if adr["description"] else ""
        lines.append(f"- {adr['path']}{status}: {adr['title']}{said}")
    return "\n".join(lines)


@unit_cmd.command(name="report")
@click.option("--summary", default="", metavar="TEXT|FILE", help="The report's opening; each phase's latest output follows.")
@click.option("--blocked", default="", metavar="TEXT|FILE",
              help="What stops the unit: report it from any phase (after two returns from REVIEW, the way out).")
@json_option
@pass_memory
def unit_report(memory, summary, blocked, as_json):
    """Append the unit's report and return to idle; prints its path.

    The report goes to reference/reports/<unit>.md, which only ever grows. It comes
    after UPDATE-DOCS, or from any phase with --blocked saying what stops the unit.

    Example:

    \b
        souveraine unit report --summary "passkeys work; docs updated"
    """
    from souveraine.forks import unit

    result = unit.report(memory, summary=_text_or_file(summary) if summary else "",
                         blocked=_text_or_file(blocked) if blocked else "")
    emit(result if as_json else result["report"], as_json)


# -- triage -------------------------------------------------------------------------------


@click.command(name="triage")
@click.argument("text")
@click.option("--heuristic", is_flag=True, help="Use the heuristic even when a local model is configured.")
@click.option("--memory", "memory_path", metavar="PATH", default=None,
              help="The memory whose [inference] to use (optional: without one, the heuristic answers).")
@json_option
def triage_cmd(text, heuristic, memory_path, as_json):
    """Sort a message into one of five kinds, with the reason.

    The kinds: WORK, DOC-QUERY, CODE-QUERY, STATUS, CLARIFY. TEXT may be - to read stdin. Needs no memory; with one whose [inference] names an
    endpoint, the local model answers and the heuristic stands in when it cannot.

    Example:

    \b
        souveraine triage "Where is atomic_write defined?" --json
    """
    from souveraine.forks.triage import triage

    from souveraine.store import given

    message = given.stdin() if text == "-" else given.text(text, "TEXT")
    result = triage(message, None if heuristic else _optional_memory(memory_path))
    emit(result.to_dict(), as_json, lambda d: f"{d['category']}\t{d['reason']}")


def _optional_memory(explicit: str | None):
    from souveraine.errors import NotAMemory
    from souveraine.store.memory import Memory

    chosen = explicit or (click.get_current_context().find_root().obj or {}).get("memory_path")
    try:
        return Memory.find(chosen)
    except NotAMemory:
        if chosen:
            raise
        return None
