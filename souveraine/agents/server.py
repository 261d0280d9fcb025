"""The MCP server: the memory's tools, its notes as resources, and two prompts, over stdio.

``build(root)`` makes an ``MCPServer`` (the ``mcp`` SDK, 2.x) whose tools are
``agents.tooldefs.TOOLS`` — the same definitions ``souveraine tools`` prints, their input
schemas byte for byte, with their hints as annotations — each run on a fresh ``Memory``
(so an edited souveraine.toml is read again; its checked table is reused while its text is
the same). The search index stays open between calls (``recall.index.keep_open``), and the
sentence encoder loads in the background (``recall.semantic.keep_warm``). A refusal is a tool error whose text is
``code: message``. Resources are the wake (``memory://wake``) and the notes
(``memory://notes/{path}``), listed a page at a time (``cursor`` / ``nextCursor``); listing
leaves out what the Cloister keeps queryable only (the journal, the archive), which stay
readable by path and searchable through ``recall``. Prompts: ``wake`` and ``reflection``.
stdout is the protocol's wire: nothing here prints; the SDK logs to stderr.
"""

import inspect
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ListResourcesResult, Resource, ToolAnnotations
from pydantic import Field, ValidationError

from souveraine import __version__
from souveraine.agents import tooldefs
from souveraine.errors import SouveraineError
from souveraine.store import layout, notes
from souveraine.store.memory import Memory

URI = "memory://notes/"
PAGE = 200              # resources a page: a year of memory lists in a few small answers
INSTRUCTIONS = """\
This server is your long-term memory: a git repository of Markdown notes you own.
Call wake at the start of a session and read what it returns. Before answering, surface may
hand you a thought that waited for you. After each answer, call persist with the user's
words and yours. Use recall to search the past, remember to keep a fact, read_note,
write_note and edit_note for people/, domains/ and reference/ notes, build_context to follow
a note's links, state_set to keep your phase and unit of work. Notes are also resources at
memory://notes/<path>."""


class MemoryServer(MCPServer):
    """An MCPServer whose resource list is read from the memory at each request, a page at a time."""

    def __init__(self, root: Path):
        super().__init__("souveraine", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
        self.root = Path(root)

    async def _handle_list_resources(self, ctx, params) -> ListResourcesResult:
        start = _offset(params.cursor if params else None)
        fixed = await super().list_resources() if start == 0 else []
        listed = listed_notes(self.root)
        page = listed[start:start + PAGE]
        more = start + PAGE < len(listed)
        resources = fixed + [Resource(uri=URI + relpath, name=relpath, description=_described(self.root, relpath) or None,
                                      mime_type="text/markdown") for relpath in page]
        return ListResourcesResult(resources=resources, next_cursor=str(start + PAGE) if more else None)

    async def run_stdio_async(self) -> None:
        """Over pipes, the event loop reads and writes the wire itself (``wire.pipes``)."""
        from mcp.server.stdio import stdio_server

        from souveraine.agents import wire

        if not hasattr(self, "_lowlevel_server"):      # another SDK than the one this was written for
            return await super().run_stdio_async()
        async with wire.pipes() as ends:
            if ends is None:
                return await super().run_stdio_async()
            async with stdio_server(*ends) as (read, write):
                await self._lowlevel_server.run(read, write, self._lowlevel_server.create_initialization_options())

    async def call_tool(self, name, arguments, context=None):
        """The SDK's errors in our one shape, ``code: message``, without its "Error executing tool" prefix."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            raise UnexpectedToolError(f"internal: {name} failed unexpectedly; the server's log on stderr says "
                                      "why") from exc.__cause__
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(f"usage: {_invalid(name, cause)}") from None
            if isinstance(cause, ToolError):
                raise ToolError(str(cause)) from None
            if name not in tooldefs.BY_NAME:
                raise ToolError(f"usage: no tool named '{name}'; the tools are: {', '.join(tooldefs.BY_NAME)}") from None
            raise


def build(root: Path | str) -> MemoryServer:
    """The server for the memory at ``root`` (found by the caller: --memory, $SOUVERAINE_MEMORY, cwd)."""
    from souveraine.laws import inprocess
    from souveraine.recall import index

    inprocess.enable()
    index.keep_open()           # a search's connection and its page cache serve the next call too
    _keep_warm(Path(root))
    server = MemoryServer(Path(root))
    for tool in tooldefs.TOOLS:
        server.add_tool(_callable(tool, server.root), name=tool.name, title=tool.title, description=tool.text,
                        annotations=ToolAnnotations(title=tool.title, read_only_hint=tool.read_only,
                                                    destructive_hint=tool.destructive,
                                                    idempotent_hint=tool.idempotent, open_world_hint=False))
        server._tool_manager.get_tool(tool.name).parameters = tool.schema
    server.resource(URI + "{+path}", name="note", description="A note of the memory, by its path",
                    mime_type="text/markdown")(lambda path: read_note(Memory(server.root), path))
    server.resource("memory://wake", name="wake", mime_type="text/markdown",
                    description="The wake: the context document to read at a session's start")(
        lambda: _readable(lambda: tooldefs.BY_NAME["wake"].call(Memory(server.root), {}))["document"])

    @server.prompt(name="wake", title="Wake", description="Begin a session with your memory: who you are, "
                   "what shaped you, what matters now")
    def wake(bandwidth: str = "high") -> str:
        return wake_prompt(Memory(server.root), bandwidth)

    @server.prompt(name="reflection", title="Reflection", description="Witness the conversation since the "
                   "last reflection: the Fold, the Chain, the Anchor")
    def reflection() -> str:
        return reflection_prompt(Memory(server.root))

    return server


def _keep_warm(root: Path) -> None:
    """Sentence vectors at hand for every recall: the encoder loads in the background now, so
    ``[recall] semantic = "auto"`` uses it once loaded and never waits for it. The recalls
    run here, not through a recall server: this process is as warm. The vectors documents
    lack are computed by a recall server started in the background where none runs (it fills
    the memory's vector store, yielding to nothing here, then idles out); until then a recall
    here ranks by words, or encodes the few new documents itself."""
    from souveraine.recall import semantic, warm

    warm.answer_here()
    memory = Memory(root)
    try:
        if semantic.mode(memory) is not False and semantic.available(memory):
            semantic.keep_warm(semantic.location(memory), semantic.current(memory))
            warm.ahead(memory)
    except SouveraineError:
        pass                    # a bad [recall] semantic is said by the recall that reads it


def listed_notes(root: Path) -> list[str]:
    """Each note an agent may browse: all but the hidden, the queryable-only and the cache, by path.
    Folders the Cloister keeps queryable only are not even walked."""
    import os

    found = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder).relative_to(root).as_posix()
        base = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if (not d.startswith(".") or d == ".skills")
                         and layout.weight(f"{base}{d}/x.md") not in (layout.QUERYABLE, layout.CACHE))
        found += [base + name for name in files if name.endswith(".md")
                  and layout.weight(base + name) not in (layout.QUERYABLE, layout.CACHE)]
    return sorted(found)


def _described(root: Path, relpath: str) -> str:
    return str(notes.peek(Path(root) / relpath, "description").get("description") or "")


def read_note(memory: Memory, relpath: str) -> str:
    from souveraine.agents import notebook

    relpath = _readable(lambda: notebook.check_path(memory, relpath))
    if not memory.exists(relpath):
        raise MCPError(code=INVALID_PARAMS, message=f"usage: no note at '{relpath}'")
    return memory.read_text(relpath)


def wake_prompt(memory: Memory, bandwidth: str = "high") -> str:
    document = _readable(lambda: tooldefs.BY_NAME["wake"].call(memory, {"bandwidth": bandwidth}))["document"]
    return ("This is your wake: your long-term memory's account of who you are and what matters now. Read it, "
            "then carry on as yourself.\n\n" + document)


def reflection_prompt(memory: Memory) -> str:
    from souveraine.tempos import reflect

    turns, last = reflect.window(memory)
    if not turns:
        return "Nothing was said since the last reflection; there is nothing to witness yet."
    since = f"since {last.link}" if last else "since the beginning"
    return (f"{reflect.SYSTEM_PROMPT}\n\n{len(turns)} turns {since}.\n\n"
            + reflect.USER_PROMPT.format(transcript=reflect.transcript(turns)))


# -- each tool as the SDK sees it -------------------------------------------------------------

_PYTHON = {"string": str, "integer": int, "boolean": bool, "object": dict[str, Any]}


def _annotation(param: tooldefs.Param):
    schema = param.schema
    if "enum" in schema:
        kind = Literal[tuple(schema["enum"])]
    elif schema["type"] == "array":
        kind = list[_PYTHON[schema["items"]["type"]]]
    else:
        kind = _PYTHON[schema["type"]]
    bounds = {k: schema[v] for k, v in (("ge", "minimum"), ("le", "maximum")) if v in schema}
    if not param.required:
        kind = kind | None
    return Annotated[kind, Field(description=param.description, **bounds)]


def _callable(tool: tooldefs.Tool, root: Path):
    """A function with the tool's parameters, for the SDK to check the arguments; it runs the tool."""
    def call(**arguments) -> dict[str, Any]:
        given = {k: v for k, v in arguments.items() if v is not None}
        return _guard(lambda: tool.call(Memory(root), given))

    call.__name__ = tool.name
    call.__signature__ = inspect.Signature(
        [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(p),
                           **({} if p.required else {"default": p.default})) for p in tool.params],
        return_annotation=dict[str, Any])
    return call


def _guard(run):
    """Our errors as the tool errors a model reads: ``code: message``."""
    try:
        return run()
    except SouveraineError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None


def _readable(run):
    """Our errors as a resource's or a prompt's protocol error: ``code: message``."""
    try:
        return run()
    except SouveraineError as exc:
        raise MCPError(code=INVALID_PARAMS, message=f"{exc.code}: {exc.message}") from None


def _invalid(name: str, error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the arguments"
    return f"{name}: '{where}' {first['msg'].lower()}"


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise MCPError(code=INVALID_PARAMS, message=f"usage: '{cursor}' is not a cursor this server gave")
    return int(cursor)
