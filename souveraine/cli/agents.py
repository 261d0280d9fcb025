"""`mcp`, `tools`, `integrate`, `events`: any agent can use the memory."""

import click

from souveraine.cli.common import emit, json_option, pass_memory

FORMAT = click.Choice(["openai", "anthropic"])


@click.command(name="mcp")
@pass_memory
def mcp_cmd(memory):
    """Serve the memory over the Model Context Protocol (stdio): its tempos as tools, its notes as resources.

    Tools (27, each annotated read-only, destructive or idempotent): wake, surface, persist,
    recall, remember, elevate, reflect, archive, doctor, status, forget, ledger, ledger_close,
    inbox, inbox_add, recent_activity, state, state_set, digest, verify, read_note,
    write_note, edit_note, move_note, delete_note, build_context, list_notes. Resources: memory://wake and memory://notes/<path>, paged.
    Prompts: wake, reflection. stdout is the wire; messages go to stderr. Needs the mcp
    package (pip install 'souveraine[mcp]').

    Example:

    \b
        claude mcp add souveraine -- souveraine --memory ~/memory mcp
    """
    from souveraine.errors import SouveraineError

    try:
        from souveraine.agents import server
    except ImportError as exc:
        if exc.name and exc.name.split(".")[0] == "mcp":
            raise SouveraineError("the MCP server needs the mcp package; install it with "
                                  "pip install 'souveraine[mcp]'", code="missing_dependency") from None
        raise
    from souveraine.recall import ahead

    built = server.build(memory.root)
    ahead.Scanner(memory.root).start()      # the work tree scanned before a recall would have to
    built.run()


@click.command(name="tools")
@click.option("--format", "fmt", type=FORMAT, default="openai", show_default=True,
              help="The tool-definition shape of this model API.")
@click.option("--only", "only", metavar="NAMES", multiple=True,
              help="Only these tools, by name, comma-separated or repeated (default: the core five).")
@click.option("--all", "every", is_flag=True, help="Every tool, not only the core five.")
@click.option("--call", "call", metavar="NAME", default=None,
              help="Run the tool NAME with the JSON arguments object on stdin, and print its JSON result.")
@click.option("--memory", "memory_path", metavar="PATH", default=None,
              help="The memory --call works on (default: $SOUVERAINE_MEMORY, else the nearest souveraine.toml above).")
@json_option
def tools_cmd(fmt, only, every, call, memory_path, as_json):
    """Print the definitions of the tools an agent calls, the same the MCP server serves.

    By default the core five an agent needs every turn: wake, surface, persist, recall,
    remember (about 1,800 tokens); --only picks others by name, --all gives every one
    (notes, ledger, inbox, forget, build_context…). A loop hands the definitions to its
    model and runs each call with --call. The output is JSON with or without --json.

    Example:

    \b
        souveraine tools --format anthropic > tools.json
        souveraine tools --only recall,read_note,build_context
        echo '{"query": "plumber"}' | souveraine tools --call souveraine_recall
    """
    from souveraine.agents import tooldefs

    if call is None:
        emit(tooldefs.definitions(fmt, list(only), every), True)
        return
    emit(_call(tooldefs.find(call), memory_path), True)


@click.group(name="integrate")
def integrate_cmd():
    """Wire an agent's own hooks to the memory's tempos.

    Example:

    \b
        souveraine integrate claude-code --project ~/code/app
    """


_PROJECT = click.option("--project", type=click.Path(file_okay=False, path_type=str), default=".", show_default=True,
                        help="The project whose settings receive the hooks (~ for your own, every project's).")
_LAUNCHER = click.option("--souveraine", "launcher", metavar="COMMAND", default=None,
                         help="How the hooks call souveraine (default: this installation's launcher, by absolute path).")


@integrate_cmd.command(name="claude-code")
@_PROJECT
@click.option("--local", is_flag=True, help="Write .claude/settings.local.json (yours alone, not committed) instead.")
@_LAUNCHER
@click.option("--max-chars", type=click.IntRange(1, 10_000), default=9_500, show_default=True, metavar="N",
              help="Keep the wake within N characters: Claude Code shows the model only a 2 KB preview of "
                   "a hook's output past 10,000.")
@click.option("--mcp", "with_mcp", is_flag=True, help="Also declare the MCP server in the project's .mcp.json.")
@json_option
@pass_memory
def integrate_claude_code(memory, project, local, launcher, max_chars, with_mcp, as_json):
    """Merge the tempos into Claude Code's hooks, keeping every other setting.

    SessionStart → wake --max-chars N --serve (its output becomes context, and Claude Code
    keeps 10,000 characters of it; then the warm recall server starts in the background
    where recall can use sentence vectors), UserPromptSubmit → surface, Stop → persist
    --claude-code, PreCompact → reflect, then archive. Running it again changes nothing;
    hooks it wrote before are updated in place. --mcp also declares the MCP server in
    .mcp.json.

    Example:

    \b
        souveraine --memory ~/memory integrate claude-code --project ~/code/app --mcp
        souveraine --memory ~/memory integrate claude-code --project ~ --local
    """
    from pathlib import Path

    from souveraine.agents import integrate

    results = [integrate.claude_code(memory, Path(project).expanduser(), local=local, souveraine=launcher,
                                     max_chars=max_chars)]
    if with_mcp:
        results.append(integrate.mcp_server(memory, Path(project).expanduser(), souveraine=launcher))
    _report_wired(results if with_mcp else results[0], as_json)


@integrate_cmd.command(name="codex")
@_PROJECT
@_LAUNCHER
@json_option
@pass_memory
def integrate_codex(memory, project, launcher, as_json):
    """Merge the tempos into Codex CLI's hooks (.codex/hooks.json), keeping the rest.

    SessionStart, UserPromptSubmit, Stop and PreCompact all run 'integrate hook', which
    answers in the JSON Codex reads: the wake and what surfaces as additionalContext, the
    exchange persisted at Stop (the prompt kept from UserPromptSubmit by its turn_id).
    Running it again changes nothing.

    Example:

    \b
        souveraine --memory ~/memory integrate codex --project ~/code/app
        souveraine --memory ~/memory integrate codex --project ~
    """
    from pathlib import Path

    from souveraine.agents import integrate

    _report_wired(integrate.wire(memory, integrate.CODEX, Path(project).expanduser(), souveraine=launcher), as_json)


@integrate_cmd.command(name="gemini")
@_PROJECT
@_LAUNCHER
@json_option
@pass_memory
def integrate_gemini(memory, project, launcher, as_json):
    """Merge the tempos into Gemini CLI's hooks (.gemini/settings.json), keeping the rest.

    SessionStart, BeforeAgent, AfterAgent and PreCompress all run 'integrate hook', which
    prints only the JSON Gemini requires. Turns hooksConfig.enabled on unless it is already
    set either way. Running it again changes nothing.

    Example:

    \b
        souveraine --memory ~/memory integrate gemini --project ~/code/app
        souveraine --memory ~/memory integrate gemini --project ~
    """
    from pathlib import Path

    from souveraine.agents import integrate

    _report_wired(integrate.wire(memory, integrate.GEMINI, Path(project).expanduser(), souveraine=launcher), as_json)


def _report_wired(data, as_json: bool) -> None:
    from souveraine.cli.common import say

    if not as_json:
        for result in data if isinstance(data, list) else [data]:
            say(f"{'wrote' if result['changed'] else 'already current:'} {result['settings']}")
    emit(data, as_json, lambda data: None)


@integrate_cmd.command(name="hook")
@click.option("--max-chars", type=click.IntRange(1), metavar="N", default=None,
              help="Keep the wake's additionalContext within N characters, for an agent that cuts longer output.")
@json_option
@pass_memory
def integrate_hook(memory, max_chars, as_json):
    """Answer an agent's lifecycle hook: its JSON payload on stdin, JSON on stdout.

    For agents whose hooks want JSON only (Gemini CLI) or differ from Claude Code's
    (Codex CLI, Letta Code). SessionStart → wake and UserPromptSubmit/BeforeAgent →
    surface, as additionalContext; Stop/AfterAgent → persist; PreCompact/PreCompress →
    reflect and archive. At SessionStart the warm recall server also starts in the
    background, as with wake --serve. Never exits 2, which would block the agent. The
    output is JSON with or without --json.

    Example:

    \b
        echo '{"hook_event_name": "BeforeAgent", "prompt": "hi"}' | souveraine integrate hook
    """
    import sys

    from souveraine.agents import adapter
    from souveraine.errors import SouveraineError, UsageError
    from souveraine.store import given

    try:
        text = "" if sys.stdin is None or sys.stdin.isatty() else given.stdin("the hook's payload")
        try:
            payload = given.json_value(text, "the hook's payload")
        except ValueError:
            raise UsageError("the hook's payload on stdin is not JSON; wire this command to an agent's hook") from None
        answer = adapter.respond(memory, payload, max_chars=max_chars)
    except UsageError as exc:
        # Exit 2 blocks the agent (its prompt, its stop): a payload we cannot read is our problem, not its.
        raise SouveraineError(str(exc), code=exc.code) from None
    emit(answer, True)


@click.command(name="events")
@click.option("--since", metavar="DATE|COMMIT", default=None,
              help="Only the commits after a commit (id, tag, HEAD~N), or from a date or time on "
                   "(2026-12-01, 2026-12-01T09:00, yesterday, last week).")
@click.option("--follow", is_flag=True, help="Keep watching, printing each new commit's events as it lands.")
@click.option("--interval", type=click.FloatRange(0.05), default=1.0, show_default=True,
              help="Seconds between looks at the memory while following.")
@json_option
@pass_memory
def events_cmd(memory, since, follow, interval, as_json):
    """What happened to the memory, read from its commits: memory.added, memory.elevated, …

    Oldest first. With --json a list of events; with --follow one JSON object per line.
    [events] command in souveraine.toml receives each new event on stdin after its commit.

    Example:

    \b
        souveraine events --since HEAD~10
        souveraine events --since 2026-12-01 --json
        souveraine events --follow --json | jq -c 'select(.event == "memory.added")'
    """
    from souveraine.agents import events

    if not follow:
        emit([event.to_dict() for event in events.events(memory, since)], as_json, _render_events)
        return
    import json
    import sys
    import time

    try:
        for event in events.follow(memory, since, wait=time.sleep, interval=interval):
            data = event.to_dict()
            click.echo(json.dumps(data, ensure_ascii=False) if as_json else _render_events([data]))
            sys.stdout.flush()      # a pipe's reader wants each event as it lands
    except KeyboardInterrupt:
        return                      # Ctrl-C is how following ends


def _call(tool, memory_path: str | None) -> dict:
    import sys

    from souveraine.errors import UsageError
    from souveraine.store import given
    from souveraine.store.memory import Memory

    text = "" if sys.stdin is None or sys.stdin.isatty() else given.stdin(f"the arguments of {tool.name}")
    try:
        arguments = given.json_value(text, f"the arguments of {tool.name}") if text.strip() else {}
    except ValueError:
        raise UsageError(f"the arguments of {tool.name} on stdin are not JSON; give an object like {{}}") from None
    chosen = memory_path or (click.get_current_context().find_root().obj or {}).get("memory_path")
    return tool.call(Memory.find(chosen), arguments)


def _render_events(rows: list[dict]) -> str:
    return "\n".join(f"{row['commit'][:8]}  {row['at']}  {row['event']:22}  {_summary(row)}" for row in rows)


def _summary(row: dict) -> str:
    data = row["data"]
    if row["event"].startswith("memory.") and "id" in data:
        return f"{data['id'][:8]}  {data.get('description', row['path'] or '')}"
    if row["event"] == "chronicle.entry_added":
        return f"{data['kind']} · {data['identity'] or 'project'}"
    if row["event"] == "journal.appended":
        return f"{row['path']} (+{len(data['turns'])} turns)"
    if "text" in data:
        return data["text"]
    return row["path"] or row["subject"]
