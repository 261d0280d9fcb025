"""The MCP server: the memory's tempos as tools, its notes as resources, over stdio.

``build(root)`` makes an ``MCPServer`` (the ``mcp`` SDK, 2.x) whose tools call the same
library functions as the commands, each on a fresh ``Memory`` (so an edited
souveraine.toml is read again), and whose resources are the memory's notes at
``memory://notes/{path}``, and the wake at ``memory://wake``. Listing leaves out what the Cloister keeps queryable only (the
journal, the archive), which stay readable by path and searchable through ``recall``.
stdout is the protocol's wire: nothing here prints; the SDK logs to stderr.

``elevate`` takes witnesses' attestations as JSON objects, signed elsewhere by
``souveraine witness sign``: a private key never passes through this server.
"""

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from souveraine import __version__
from souveraine.errors import SouveraineError, UsageError
from souveraine.store import layout, notes
from souveraine.store.memory import Memory

URI = "memory://notes/"
Bandwidth = Annotated[Literal["high", "medium", "low", "minimal"],
                      Field(description="The viewport: high shows everything; lower bandwidths keep private and minor things out")]
INSTRUCTIONS = """\
This server is your long-term memory: a git repository of Markdown notes you own.
Call wake at the start of a session and read what it returns. After each answer, call
persist with the user's words and yours. Before answering, surface may hand you a thought
that waited for you. Use recall to search the past; remember to keep a fact; reflect and
archive when the conversation grows long. Notes are resources at memory://notes/<path>."""


class MemoryServer(MCPServer):
    """An MCPServer whose resource list is read from the memory at each request."""

    def __init__(self, root: Path):
        super().__init__("souveraine", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
        self.root = Path(root)

    async def list_resources(self):
        from mcp.types import Resource

        fixed = await super().list_resources()
        return fixed + [Resource(uri=URI + relpath, name=relpath, description=description or None,
                                 mime_type="text/markdown") for relpath, description in listed_notes(self.root)]


def build(root: Path | str) -> MemoryServer:
    """The server for the memory at ``root`` (found by the caller: --memory, $SOUVERAINE_MEMORY, cwd)."""
    from souveraine.laws import inprocess

    inprocess.enable()
    server = MemoryServer(Path(root))
    for tool in TOOLS:
        server.add_tool(_guarded(tool, server.root), name=tool.__name__.removeprefix("tool_"),
                        description=tool.__doc__)
    server.resource(URI + "{+path}", name="note", description="A note of the memory, by its path",
                    mime_type="text/markdown")(lambda path: read_note(Memory(server.root), path))
    server.resource("memory://wake", name="wake", mime_type="text/markdown",
                    description="The wake: the context document to read at a session's start")(
        lambda: tool_wake(Memory(server.root))["document"])
    return server


def listed_notes(root: Path) -> list[tuple[str, str]]:
    """Each note an agent may browse, with its description: all but the queryable-only and the cache."""
    memory = Memory(root)
    found = []
    for path in sorted(memory.root.rglob("*.md")):
        relpath = memory.rel(path)
        parts = relpath.split("/")
        if any(p.startswith(".") and p != ".skills" for p in parts):
            continue
        if layout.weight(relpath) in (layout.QUERYABLE, layout.CACHE):
            continue
        found.append((relpath, str(notes.peek(path, "description").get("description") or "")))
    return found


def read_note(memory: Memory, relpath: str) -> str:
    path = memory.path(relpath)
    if not relpath.endswith(".md") or any(p.startswith(".") and p != ".skills" for p in relpath.split("/")):
        raise UsageError(f"'{relpath}' is not a note; notes are the memory's .md files")
    if not path.is_file():
        raise UsageError(f"no note at '{relpath}'")
    return path.read_text(encoding="utf-8")


# -- the tools: each a thin call of the library, on a fresh Memory ----------------------------


def tool_wake(memory: Memory, bandwidth: Bandwidth = "high",
              identity: Annotated[str | None, Field(description="Whose wake (default: the memory's identity)")] = None,
              model: Annotated[str | None, Field(description="The [models.NAME] whose context it must fit")] = None,
              shared: Annotated[bool, Field(description="A wake others will read: nothing private")] = False) -> dict:
    """Wake: the context document for a new session — who you are, what shaped you, what to
    know now, where the rest is — within the model's token budget. Read it before anything else."""
    from souveraine.wake import render, wake

    document = wake(memory, identity=identity, model=model, bandwidth=bandwidth, shared=shared)
    return {"document": render.markdown(document)}


def tool_persist(memory: Memory,
                 assistant: Annotated[str, Field(description="Your answer, word for word")],
                 user: Annotated[str | None, Field(description="What the user said, word for word")] = None,
                 session: Annotated[str | None, Field(description="The conversation's id")] = None,
                 at: Annotated[str | None, Field(description="When you answered, ISO 8601 (default: now)")] = None,
                 tool_calls: Annotated[list[str] | None, Field(description="What the answer did, one line per tool call")] = None) -> dict:
    """Journal one exchange (the user's words and your answer) and let the N+1 subconscious work on
    it: unkept promises to save are kept, other promises go to the ledger. One commit."""
    from souveraine.tempos import persist, transcripts

    exchange = transcripts.Exchange(assistant=assistant, user=user, session=session,
                                    at=transcripts.moment(at, "at"), tool_calls=tuple(tool_calls or ())).check()
    return persist.persist(memory, exchange).to_dict()


def tool_surface(memory: Memory, bandwidth: Bandwidth = "high",
                 peek: Annotated[bool, Field(description="Only show what would surface; change nothing")] = False) -> dict:
    """Surface the next thought waiting in the inbox (every critical one at once). Its `lines`
    are what to take into this turn; empty when nothing waits."""
    from souveraine.tempos.surface import surface

    return surface(memory, bandwidth, peek).to_dict()


def tool_recall(memory: Memory,
                query: Annotated[str, Field(description="The words to find; dates like 'last week' or 'in March' narrow it")] = "",
                since: Annotated[str | None, Field(description="Only from this date: 2026-03-14, 2026-03, 2026 or 'last week'")] = None,
                until: Annotated[str | None, Field(description="Only up to this date")] = None,
                tier: Annotated[Literal["episodic", "foundational", "constitutive"] | None, Field(description="Only this tier")] = None,
                within: Annotated[str | None, Field(description="Only under this folder or file, e.g. journal/2026 or people")] = None,
                person: Annotated[str | None, Field(description="Only what names this person or links to their note")] = None,
                limit: Annotated[int, Field(ge=1, le=1000, description="How many hits")] = 10,
                private: Annotated[bool, Field(description="Include private memories")] = False) -> dict:
    """Search everything the memory holds (journal, memories, notes) for the query; dates like
    'last week' in the query narrow it. The best hits first, each with a link to its source."""
    from souveraine.recall.search import recall

    return recall(memory, query, since=since, until=until, tier=tier, within=within, person=person,
                  limit=limit, private=private).to_dict()


def tool_remember(memory: Memory,
                  text: Annotated[str, Field(description="The fact, in a sentence or a few")],
                  identity: Annotated[str | None, Field(description="Bind it to this identity (its handle)")] = None,
                  key: Annotated[str, Field(description="A grouping key; forgetting the key forgets the group")] = "",
                  visibility: Annotated[Literal["public", "private"], Field(description="Private stays out of shared wakes")] = "public",
                  source: Annotated[str, Field(description="Where it was learned, e.g. a journal wikilink")] = "",
                  to: Annotated[str | None, Field(description="Instead, append the text as a durable rule or correction "
                                                              "to this system/ file ('auto': the file its words point to)")] = None) -> dict:
    """Remember a fact as one episodic memory (one commit); returns its id. With `to`, keep a
    rule or correction (a preference, a convention) in a system/ file instead."""
    if to is not None:
        from souveraine.care.rules import remember_to

        return remember_to(memory, text, None if to == "auto" else to)
    from souveraine.identity import memories

    return memories.remember(memory, text, identity=identity, key=key, visibility=visibility, source=source)


def tool_elevate(memory: Memory,
                 memory_id: Annotated[str, Field(description="The memory's id (or its first 8 characters)")],
                 tier: Annotated[Literal["foundational", "constitutive"], Field(description="The tier to raise it to")],
                 register_append: Annotated[str, Field(description="A line added to the register")] = "",
                 walls: Annotated[list[str] | None, Field(description="Walls this memory adds")] = None,
                 deprecate_walls: Annotated[list[str] | None, Field(description="Earlier walls it retires")] = None,
                 subagents: Annotated[list[str] | None, Field(description="Subagents it adds")] = None,
                 wake_text: Annotated[str, Field(description="Text appended to the wake text")] = "",
                 attestations: Annotated[list[dict[str, Any]] | None, Field(
                     description="Witnesses' attestations, as 'souveraine witness sign' prints them")] = None) -> dict:
    """Raise a memory to foundational or constitutive with the patch it makes to its identity.
    Constitutive needs attestations: JSON objects a witness of another project made with
    'souveraine witness sign' (never a private key). One commit."""
    from souveraine.identity import elevation, witness

    patch = {"register_append": register_append, "walls_add": list(walls or []),
             "walls_deprecate": list(deprecate_walls or []), "subagents_add": list(subagents or []),
             "wake_text_append": wake_text}
    signed = [witness.parse(item) for item in attestations or []]
    return elevation.elevate(memory, memory_id, tier, patch=patch, attestations=signed)


def tool_reflect(memory: Memory,
                 force: Annotated[bool, Field(description="Witness now, however few messages came")] = False) -> dict:
    """The N+25 reflection: witness the turns since the last witness (the Fold, the Chain, the
    Flame, the Anchor) into the journal, if due or forced."""
    from souveraine.tempos import reflect

    return reflect.run(memory, force=force)


def tool_archive(memory: Memory,
                 force: Annotated[bool, Field(description="Synthesize now, whatever the pressure")] = False,
                 dry_run: Annotated[bool, Field(description="Show the synthesis; write nothing")] = False) -> dict:
    """The N+100 archivist: synthesize the journal since the last synthesis into
    system/synthesized/ when context pressure calls for it (or forced); raw is kept."""
    from souveraine.tempos import archive

    return archive.run(memory, force=force, dry_run=dry_run)


def tool_doctor(memory: Memory,
                fix: Annotated[bool, Field(description="Apply the safe fixes in one commit")] = False) -> dict:
    """Audit the memory (missing descriptions, broken links, bloat…); with fix, apply the safe fixes."""
    from souveraine.care import doctor

    if fix:
        return doctor.mend(memory)
    return {"findings": [finding.to_dict() for finding in doctor.doctor(memory)]}


def tool_status(memory: Memory, bandwidth: Bandwidth = "high") -> dict:
    """The memory at a glance: identity, phase, pending thoughts, context pressure, journal size."""
    from souveraine.status import status

    return status(memory, bandwidth)


TOOLS = (tool_wake, tool_persist, tool_surface, tool_recall, tool_remember, tool_elevate,
         tool_reflect, tool_archive, tool_doctor, tool_status)


def _guarded(tool, root: Path):
    """``tool`` as the SDK sees it: no ``memory`` parameter, our errors as tool errors, JSON-safe data."""
    import functools
    import inspect

    @functools.wraps(tool)
    def call(**arguments) -> dict[str, Any]:
        try:
            result = tool(Memory(root), **arguments)
        except SouveraineError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None
        return json.loads(json.dumps(result, default=str))

    signature = inspect.signature(tool)
    call.__signature__ = signature.replace(
        parameters=[p for name, p in signature.parameters.items() if name != "memory"],
        return_annotation=dict[str, Any])
    del call.__wrapped__
    return call
