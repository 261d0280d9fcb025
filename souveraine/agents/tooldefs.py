"""The tools an agent calls: each defined once, for `souveraine tools` and the MCP server alike.

A ``Tool`` holds its name, what it does and returns, its parameters (each a JSON schema
and words a model can act on), its hints (read-only, destructive, idempotent) and the
library call behind it. ``souveraine tools`` renders the definitions for a model API
(OpenAI's or Anthropic's shape) and ``--call`` runs one; ``agents.server`` registers the
same tools over MCP, their input schemas byte for byte these. A tool that mirrors a
command names it (``cli``), and a test holds its parameters to the command's options.

The default set is the core an agent needs in every turn (``CORE``); ``--only`` picks
others by name, ``--all`` gives every one.
"""

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from souveraine.errors import UsageError

PREFIX = "souveraine_"      # model APIs share one namespace among every tool a loop offers
FORMATS = ("openai", "anthropic")
DESCRIPTION_LIMIT = 1024    # OpenAI's limit on a function's description
BANDWIDTHS = ["high", "medium", "low", "minimal"]
TIERS = ["episodic", "foundational", "constitutive"]


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict
    description: str
    required: bool = False
    default: Any = None
    cli: str | None = ""        # the command's option it follows ("" = the same name; None = the tool's own)

    def property(self) -> dict:
        prop = {**self.schema, "description": self.description}
        if self.default is not None:
            prop["default"] = self.default
        return prop


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    returns: str
    params: tuple[Param, ...]
    run: Callable[..., dict] = field(repr=False)
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    cli: str | None = None      # the command it mirrors, e.g. "recall" or "inbox add"
    omits: tuple[str, ...] = () # the command's options a tool has no use for (output format, hook input…)

    @property
    def schema(self) -> dict:
        schema = {"type": "object", "properties": {p.name: p.property() for p in self.params},
                  "additionalProperties": False}
        required = [p.name for p in self.params if p.required]
        if required:
            schema["required"] = required
        return schema

    @property
    def text(self) -> str:
        """What a model reads: what it does, then what it returns."""
        return f"{self.description}\n\nReturns {self.returns}"[:DESCRIPTION_LIMIT]

    def annotations(self) -> dict:
        return {"title": self.title, "readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": False}

    def render(self, format: str) -> dict:
        if format == "openai":
            return {"type": "function",
                    "function": {"name": PREFIX + self.name, "description": self.text, "parameters": self.schema}}
        if format == "anthropic":
            return {"name": PREFIX + self.name, "description": self.text, "input_schema": self.schema}
        raise UsageError(f"unknown format '{format}'; use one of: {', '.join(FORMATS)}")

    def call(self, memory, arguments: dict) -> dict:
        """Check ``arguments`` against the schema, fill the defaults, run the library call."""
        given = check(self, arguments)
        result = self.run(memory, **{p.name: given.get(p.name, p.default) for p in self.params})
        return json.loads(json.dumps(result, default=str))


# -- parameters, in words a model can act on ------------------------------------------------

def text(name, description, required=False, default=None, cli=""):
    return Param(name, {"type": "string"}, description, required, default, cli)


def flag(name, description, default=False, cli=""):
    return Param(name, {"type": "boolean"}, description, False, default, cli)


def choice(name, values, description, default=None, required=False, cli=""):
    return Param(name, {"type": "string", "enum": list(values)}, description, required, default, cli)


def number(name, description, minimum=None, maximum=None, default=None, cli=""):
    schema = {"type": "integer"}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return Param(name, schema, description, False, default, cli)


def texts(name, description, cli=""):
    return Param(name, {"type": "array", "items": {"type": "string"}}, description, False, None, cli)


BANDWIDTH = choice("bandwidth", BANDWIDTHS, "How much to show: high shows everything; medium and low keep private "
                   "memories and minor thoughts out (low: on a phone); minimal shows only who you are and what "
                   "waits.", default="high")
NOTE_PATH = text("path", "The note's path inside the memory, with .md, like people/lea.md or "
                 "reference/decisions/0003-sqlite.md.", required=True, cli=None)


# -- the library calls ---------------------------------------------------------------------

def _wake(memory, bandwidth, identity, model, shared, budget, max_chars):
    from souveraine.wake import wake

    return {"document": wake(memory, identity=identity, model=model, bandwidth=bandwidth, shared=shared,
                             budget_tokens=budget, max_chars=max_chars).markdown()}


def _persist(memory, assistant, user, session, at, tool_calls, message_id):
    from souveraine.agents.receipts import persist_once
    from souveraine.tempos import transcripts

    calls = tuple(transcripts.tool_text(call) for call in tool_calls or ())
    exchange = transcripts.Exchange(assistant=assistant, user=user, session=session, tool_calls=calls,
                                    at=transcripts.moment(at, "at"),
                                    id=f"mcp:{session or ''}:{message_id}" if message_id else None).check()
    return persist_once(memory, exchange).to_dict()


def _surface(memory, bandwidth, peek):
    from souveraine.tempos.surface import surface

    return surface(memory, bandwidth, peek).to_dict()


def _recall(memory, query, since, until, tier, within, person, limit, private, recency, now, context, all,
            semantic=None):
    from souveraine.recall import warm
    from souveraine.recall.search import recall

    if not query and not any((since, until, tier, within, person)):
        raise UsageError("give words to look for (query), or a filter such as since or person")
    options = dict(since=since, until=until, tier=tier, within=within, person=person, limit=limit, private=private,
                   recency=recency, now=now, context=context, every=all, semantic=semantic)
    found = warm.recall(memory, query or "", **options) or recall(memory, query or "", **options)
    return {"hits": [hit.to_dict() for hit in found.hits],
            "dates": [{"phrase": r.phrase, "since": r.span.since, "until": r.span.until, "note": r.note}
                      for r in found.readings]}


def _remember(memory, text, identity, agent_id, key, visibility, source, to):
    if to is not None:
        from souveraine.care.rules import remember_to

        return remember_to(memory, text, None if to == "auto" else to)
    from souveraine.identity import memories

    if identity and agent_id:
        raise UsageError("give identity or agent_id, not both")
    return memories.remember(memory, text, identity=identity, agent_id=agent_id, key=key or "",
                             visibility=visibility, source=source or "")


def _elevate(memory, memory_id, tier, register_append, walls, deprecate_walls, subagents, wake_text, attestations):
    from souveraine.identity import elevation, witness

    patch = {"register_append": register_append or "", "walls_add": list(walls or []),
             "walls_deprecate": list(deprecate_walls or []), "subagents_add": list(subagents or []),
             "wake_text_append": wake_text or ""}
    signed = [witness.parse(item) for item in attestations or []]
    return elevation.elevate(memory, memory_id, tier, patch=patch, attestations=signed)


def _reflect(memory, force, extractive):
    from souveraine.tempos import reflect

    return reflect.run(memory, force=force, extractive_only=extractive)


def _archive(memory, force, dry_run, model, extractive):
    from souveraine.tempos import archive

    return archive.run(memory, force=force, dry_run=dry_run, model=model, extractive_only=extractive)


def _doctor(memory, fix):
    from souveraine.care import doctor

    if fix:
        return doctor.mend(memory)
    return {"findings": [finding.to_dict() for finding in doctor.doctor(memory)], "checks": len(doctor.CHECKS)}


def _status(memory, bandwidth):
    from souveraine.status import status

    return status(memory, bandwidth)


def _forget(memory, memory_id, key):
    from souveraine.identity import forget

    if not memory_id and not key:
        raise UsageError("give the memory's id (memory_id) or a key that groups memories (key)")
    return forget.forget(memory, memory_id, key=key)


def _ledger(memory, kind, open_only):
    from souveraine.tempos import ledger

    return {"entries": [entry.to_dict() for entry in ledger.entries(memory, kind, open_only)]}


def _ledger_close(memory, entry_id, note, dropped):
    from souveraine.tempos import ledger

    return ledger.settle(memory, entry_id, "dropped" if dropped else "closed", note or "")


def _inbox(memory, queue):
    from souveraine.tempos import inbox

    return {"items": inbox.items(memory, queue)}


def _inbox_add(memory, text, urgency):
    from souveraine.tempos import inbox

    return inbox.add(memory, text, urgency)


def _recent(memory, since, limit):
    from souveraine.agents import events

    found = events.events(memory, since or "yesterday")
    newest = [event.to_dict() for event in reversed(found)][:limit]
    return {"since": since or "yesterday", "events": newest, "more": max(0, len(found) - limit)}


def _state(memory):
    from souveraine.forks import state

    return state.read(memory).to_dict()


def _state_set(memory, phase, unit, files, replace):
    from souveraine.forks import state

    return state.set_state(memory, phase=phase, unit=unit, files=files or (), replace_files=replace)


def _digest(memory, week):
    from souveraine.care import digest

    return digest.digest(memory, week)


def _verify(memory, since, at, full):
    from souveraine.laws import verify

    if since and at:
        raise UsageError("give since or at, not both")
    report = verify.at(memory, at) if at else verify.verify(memory, since, full=full)
    return {**report.to_dict(), "witnessed": report.witnessed}


def _read_note(memory, path):
    from souveraine.agents import notebook

    return notebook.read(memory, path)


def _write_note(memory, path, content, description):
    from souveraine.agents import notebook

    return notebook.write(memory, path, content, description)


def _edit_note(memory, path, operation, content, section, find, expected_replacements):
    from souveraine.agents import notebook

    return notebook.edit(memory, path, operation, content, section, find, expected_replacements)


def _move_note(memory, path, to):
    from souveraine.agents import notebook

    return notebook.move(memory, path, to)


def _delete_note(memory, path):
    from souveraine.agents import notebook

    return notebook.delete(memory, path)


def _build_context(memory, path, depth, limit):
    from souveraine.agents import notebook

    return notebook.context(memory, path, depth, limit)


def _list_notes(memory, folder):
    from souveraine.agents import notebook

    return notebook.listing(memory, folder or "")


# -- the tools -----------------------------------------------------------------------------

TOOLS: tuple[Tool, ...] = (
    Tool("wake", "Wake", "Read this first in a session: who you are, what shaped you, the pinned notes, the "
         "essence of recent history, your inner voice, what waits for you now, and where the rest is — cut to "
         "fit the model's budget, saying what was left out and how to load it.",
         "the wake as Markdown: {\"document\": \"…\"}.", (
             BANDWIDTH,
             text("identity", "Whose wake, by handle, when the memory holds several identities (default: its own).",
                  cli="handle"),
             text("model", "The name of a [models.NAME] table in souveraine.toml whose context the wake must fit "
                  "(default: the project's model)."),
             flag("shared", "True when others will read this wake: private memories and never-share rules stay out."),
             number("budget", "The token budget (default: the model's context_limit × wake_share).", minimum=1,
                    cli="budget_tokens"),
             number("max_chars", "Keep the wake within this many characters, for a client that cuts longer text "
                    "(Claude Code's hooks keep 10,000).", minimum=1),
         ), _wake, read_only=True, idempotent=True, cli="wake", omits=("fmt", "serve")),
    Tool("surface", "Surface a waiting thought", "Call before answering: brings up the next thought waiting in "
         "your inbox (every critical one at once) — an unkept promise, a reminder, a question you may have missed. "
         "Take its lines into this turn.",
         "{\"lines\": [\"[surfacing: high: …]\"], …}; lines is empty when nothing waits.", (
             BANDWIDTH,
             flag("peek", "True to only look at what would surface, leaving it waiting."),
         ), _surface, cli="surface"),
    Tool("persist", "Persist an exchange", "Call after each answer: journals the user's words and yours (with "
         "the tools you used), keeps any promise to remember that you did not keep yet, puts other promises in "
         "the ledger and notes questions you may have missed. Runs the reflection and the archivist when due. "
         "One commit.",
         "what was journaled (turns with links), promises found, thoughts, reflection_due, archive_due, commit; "
         "duplicate is true when message_id was already persisted.", (
             text("assistant", "Your answer, word for word.", required=True, cli="assistant_text"),
             text("user", "What the user said, word for word (leave it out when you speak unprompted).",
                  cli="user_text"),
             text("session", "An id for this conversation, the same on every exchange of it."),
             text("at", "When you answered, as ISO 8601 like 2026-11-30T14:32:05 (default: now).", cli="at_text"),
             texts("tool_calls", "The tools you used for this answer, one short line each: the tool and its "
                   "target, like \"Read config/app.toml\" or \"Bash git commit -am 'fix'\". Never their output.",
                   cli=None),
             text("message_id", "Your client's id for this exchange: the same exchange sent twice with the same "
                  "id is persisted once.", cli=None),
         ), _persist, cli="persist", omits=("claude_code", "no_commit", "flush", "retry", "n1")),
    Tool("recall", "Recall", "Search everything the memory holds — journal turns, memories, people, domains, "
         "reference, archive — ranked by relevance, tier and recency. Dates in the query (\"in March\", \"last "
         "week\") favour what was said or told of then.",
         "{\"hits\": [{path, link, snippet, score, …}], \"dates\": [how dates in the query were read]}.", (
             text("query", "The words to look for, as you would say them: \"what did Lea say about the "
                  "budget last week\".", cli="words"),
             text("since", "Only from this date: 2026-03-14, 2026-03, 2026 or \"last week\"."),
             text("until", "Only up to this date (a month or year means its whole span)."),
             choice("tier", TIERS, "Only memories of this tier (journal turns are episodic)."),
             text("within", "Only under this folder or file, like journal/2026, people or people/lea.md.",
                  cli="within"),
             text("person", "Only what names this person or links to their note: a name or a handle."),
             number("limit", "How many hits to return.", minimum=1, maximum=1000, default=10),
             flag("private", "True to include private memories."),
             flag("recency", "False to rank old and new alike, by relevance and tier only.", default=True,
                  cli="no_recency"),
             text("now", "Count \"last week\" and dates without a year from this day, not from the latest turn."),
             number("context", "Show each turn found with this many turns before and after it.", minimum=0,
                    maximum=20, default=0),
             flag("all", "True to let a note and the turn it was written from both take a place.", cli="every"),
             flag("semantic", "True to rank by meaning too, with sentence vectors (the static encoder, "
                  "or MiniLM with the semantic extra); false for words only. Left out: as the memory's config says.", default=None),
         ), _recall, read_only=True, idempotent=True, cli="recall"),
    Tool("remember", "Remember", "Keep a fact for the long term as one memory (one commit), or, with to, a "
         "durable rule or correction (a preference, a convention) in a pinned system/ note.",
         "the memory's id, path and commit (or the rule's file and commit).", (
             text("text", "The fact in a sentence or a few, with the names and dates that make it findable.",
                  required=True),
             text("identity", "Bind it to this identity, by handle, when it concerns who that identity is.",
                  cli="handle"),
             text("agent_id", "Bind it to this identity by its id instead of its handle."),
             text("key", "A grouping key (like holiday-2026): forgetting the key forgets the whole group."),
             choice("visibility", ["public", "private"], "private keeps it out of shared wakes and low bandwidths.",
                    default="public"),
             text("source", "Where you learned it, ideally the journal link persist returned, like "
                  "[[journal/2026/11/2026-11-30#^t143205u4a1f]]."),
             text("to", "Instead of a memory, append the text as a rule to this system/ note (like "
                  "system/human/prefs/communication.md), or \"auto\" for the note its words point to."),
         ), _remember, cli="remember"),
    Tool("elevate", "Elevate a memory", "Raise a memory to foundational or constitutive, with the change it "
         "makes to who you are (register, walls, subagents, wake text). Constitutive needs attestations signed "
         "by witnesses of other projects (souveraine witness sign); never pass a private key. One commit.",
         "the elevated memory and the identity patch applied.", (
             text("memory_id", "The memory's id, or its first 8 characters.", required=True),
             choice("tier", ["foundational", "constitutive"], "The tier to raise it to.", required=True),
             text("register_append", "A line added to how you speak (your register)."),
             texts("walls", "Walls this memory adds: things you will not do."),
             texts("deprecate_walls", "Earlier walls it retires, word for word.", cli="deprecated"),
             texts("subagents", "Subagents (roles you can take) it adds."),
             text("wake_text", "Text appended to what your wake says of you."),
             Param("attestations", {"type": "array", "items": {"type": "object"}},
                   "Witnesses' attestations, each the JSON object 'souveraine witness sign' printed.",
                   cli="attestation_files"),
         ), _elevate, cli="elevate"),
    Tool("reflect", "Reflect", "The reflection: witness the turns since the last one — what turned (the Fold), "
         "what led to what (the Chain), what mattered (the Flame), what held (the Anchor) — into the journal, "
         "when 25 messages have passed or when forced.",
         "the witness entry and its links, or why it did not run.", (
             flag("force", "True to reflect now, however few messages came."),
             flag("extractive", "True to reflect without the local model, by the extractive method alone."),
         ), _reflect, cli="reflect"),
    Tool("archive", "Archive", "The archivist: synthesize the journal since the last synthesis into a dense "
         "essence when the context is under pressure (or forced); the raw journal is kept.",
         "the synthesis written and the context pressure before and after.", (
             flag("force", "True to synthesize now, whatever the pressure."),
             flag("dry_run", "True to see the synthesis without writing it."),
             text("model", "The [models.NAME] in souveraine.toml whose local model writes it (default: the "
                  "project's)."),
             flag("extractive", "True to synthesize without the local model, by the extractive method alone."),
         ), _archive, cli="archive"),
    Tool("doctor", "Check the memory's health", "Audit the memory: missing descriptions, broken links, "
         "overgrown notes, missing hooks…; with fix, apply the safe fixes in one commit.",
         "{\"findings\": [{severity, path, why, fix}], \"checks\": N}; no findings means healthy.", (
             flag("fix", "True to apply the safe fixes.", cli="apply_fixes"),
         ), _doctor, cli="doctor"),
    Tool("status", "Status", "The memory at a glance: identity, phase, pending thoughts, context pressure, "
         "journal size.", "the status as an object.", (BANDWIDTH,), _status, read_only=True, idempotent=True,
         cli="status"),
    Tool("forget", "Forget a memory", "Delete a memory at any tier, or every memory sharing a key (all or none); "
         "a memory that shaped you takes its change to who you are with it. Refused when a witness's receipt is "
         "paid. One commit; git history keeps what it was.",
         "what was forgotten and the commit.", (
             text("memory_id", "The memory's id (or its first 8 characters).", cli="memory_id"),
             text("key", "Forget every memory with this key instead."),
         ), _forget, destructive=True, idempotent=True, cli="forget"),
    Tool("ledger", "Read the ledger", "Your commitments, assumptions, patterns and drift, each with its status "
         "and the turn it came from: what you promised and have not done yet.",
         "{\"entries\": [{id, kind, status, text, due, link}]}.", (
             choice("kind", ["commitments", "assumptions", "patterns", "drift"], "Only this kind (default: all)."),
             flag("open_only", "True for the entries still open only."),
         ), _ledger, read_only=True, idempotent=True, cli="ledger list"),
    Tool("ledger_close", "Close a ledger entry", "Settle an open ledger entry by hand: kept (closed), or, with "
         "dropped, let go; its reminder leaves the inbox. One commit.",
         "the settled entry and the commit.", (
             text("entry_id", "The entry's id, as the ledger tool lists it (like c3fa9c2).", required=True),
             text("note", "Why or how it was kept (or why it will not be), kept on the entry's line."),
             flag("dropped", "True when it will not be kept, rather than kept.", cli=None),
         ), _ledger_close, cli="ledger close"),
    Tool("inbox", "List the inbox", "The thoughts waiting to surface (pending), or those already surfaced (sent).",
         "{\"items\": [{id, at, urgency, text}]}.", (
             choice("queue", ["pending", "intrusive", "sent"], "Which queue to list.", default="pending",
                    cli="which"),
         ), _inbox, read_only=True, idempotent=True, cli="inbox list"),
    Tool("inbox_add", "Queue a thought", "Put a thought in your inbox to surface in a later turn: a reminder, "
         "something to bring up with the user. One commit.",
         "the queued item and the commit.", (
             text("text", "The thought, in a line.", required=True),
             choice("urgency", ["low", "medium", "high", "critical"], "How urgently it should surface: critical "
                    "surfaces at once, low only when nothing else waits.", default="medium"),
         ), _inbox_add, cli="inbox add"),
    Tool("recent_activity", "Recent activity", "What changed in the memory lately, newest first, read from its "
         "commits: memories added, notes edited, turns journaled, thoughts queued — yours and the person's.",
         "{\"events\": [{event, at, path, subject, data}], \"more\": N}.", (
             text("since", "From when: a date or time (2026-11-30, 2026-11-30T09:00), a phrase (yesterday, last "
                  "week) or a commit id (default: yesterday)."),
             number("limit", "How many events to return, newest first.", minimum=1, maximum=500, default=50,
                    cli=None),
         ), _recent, read_only=True, idempotent=True, cli="events", omits=("follow", "interval")),
    Tool("state", "Read the workflow state", "Your working state, pinned in every wake: the phase (idle, INIT, "
         "ORIENT, DEVELOP, REVIEW, UPDATE-DOCS, REPORT), the unit of work and the files it touched.",
         "{phase, unit, files_touched, retries}.", (), _state, read_only=True, idempotent=True, cli="state show"),
    Tool("state_set", "Set the workflow state", "Move to another phase, start or name a unit of work, or add the "
         "files you touched (paths only, never their content). A new unit starts with no files. One commit.",
         "{phase, unit, files_touched, retries, commit}.", (
             choice("phase", ["idle", "INIT", "ORIENT", "DEVELOP", "REVIEW", "UPDATE-DOCS", "REPORT"],
                    "The phase you are entering (default: keep the current one)."),
             text("unit", "The unit of work, a short name like login-form; a new unit starts with no files touched."),
             texts("files", "Paths of files you touched, like src/app.py; they add to the unit's files_touched."),
             flag("replace", "True to replace files_touched with files instead of adding to it."),
         ), _state_set, idempotent=True, cli="state set"),
    Tool("digest", "Digest a week", "Distil a week of the journal into people/ and domains/ notes, each line linked "
         "to the turn it came from; the journal stays as it is. One commit.",
         "{week, notes: [paths written], bullets: N}.", (
             text("week", "The ISO week to digest, like 2026-W48 (default: last week)."),
         ), _digest, idempotent=True, cli="digest"),
    Tool("verify", "Verify the history", "Replay the memory's history and list every breach of its laws "
         "(append-only files rewritten, bad commit messages, key material, broken frontmatter, witnesses that no "
         "longer verify). Only the commits since the last run are judged, unless full.",
         "{commits, judged, breaches: [{commit, rule, message}], witnessed}; no breaches means the history is "
         "lawful.", (
             text("since", "Only the commits after this revision, like a tag or HEAD~50."),
             text("at", "Only re-check every witnessed memory, covenant and identity as it stands at this revision, "
                  "like HEAD.", cli="at_rev"),
             flag("full", "True to judge every commit again, ignoring the record of earlier runs."),
         ), _verify, read_only=True, idempotent=True, cli="verify"),
    Tool("read_note", "Read a note", "Read one note of the memory: its properties, its text and the notes it "
         "links to.", "{path, properties, body, links: [{link, target}]}.", (NOTE_PATH,), _read_note,
         read_only=True, idempotent=True),
    Tool("write_note", "Write a note", "Create a note, or replace its text (its properties are kept unless the "
         "content brings its own frontmatter), in people/, domains/, reference/, troubleshooting/, system/… "
         "The journal, memories, the witness, inbox and ledger have their own tools. One commit, judged by the "
         "memory's laws.",
         "{path, created, commit}.", (
             NOTE_PATH,
             text("content", "The note's Markdown: its text, optionally with frontmatter. Link other notes as "
                  "[[people/lea]].", required=True, cli=None),
             text("description", "One sentence saying what the note holds (required for a new note without "
                  "frontmatter).", cli=None),
         ), _write_note, destructive=True, idempotent=True),
    Tool("edit_note", "Edit a note", "Change part of a note: append or prepend text, replace what a heading "
         "holds (replace_section), or replace exact text (find_replace). One commit, judged by the laws.",
         "{path, operation, commit}.", (
             NOTE_PATH,
             choice("operation", ["append", "prepend", "replace_section", "find_replace"], "What to do with "
                    "content.", required=True, cli=None),
             text("content", "The text to add, or the replacement.", required=True, cli=None),
             text("section", "For replace_section: the heading whose body is replaced, like \"Contact\".",
                  cli=None),
             text("find", "For find_replace: the exact text to replace.", cli=None),
             number("expected_replacements", "For find_replace: how many times find must occur.", minimum=1,
                    default=1, cli=None),
         ), _edit_note, destructive=True),
    Tool("move_note", "Move a note", "Move or rename a note and point every link to it at its new place, and its "
         "own relative links at what they named (two commits: the move, the links). Refused when the journal links to it by a path the move would break.",
         "{path, from, commit, links_updated, links_commit}.", (
             NOTE_PATH,
             text("to", "The new path, with .md, like people/friends/lea.md.", required=True, cli=None),
         ), _move_note),
    Tool("delete_note", "Delete a note", "Delete a note of people/, domains/, reference/… that no longer "
         "serves (git history keeps what it said). Refused while another note links to it: edit those links "
         "first, or move the note instead. Memories are forgotten with forget, not deleted here. One commit.",
         "{path, deleted, commit}.", (NOTE_PATH,), _delete_note, destructive=True, idempotent=True),
    Tool("build_context", "Build context around a note", "A note and the notes it links to, and theirs, up to "
         "depth links away — a person with the turns that mention them, a decision with what it cites. A link "
         "to a journal turn brings that turn alone.",
         "{root, notes: [{path, depth, description, text}], left_out: N}.", (
             NOTE_PATH,
             number("depth", "How many links away to follow.", minimum=0, maximum=3, default=1, cli=None),
             number("limit", "At most this many notes.", minimum=1, maximum=100, default=20, cli=None),
         ), _build_context, read_only=True, idempotent=True),
    Tool("list_notes", "List notes", "The notes in a folder of the memory, with what each holds, and its "
         "subfolders.", "{folder, folders, notes: [{path, description}]}.", (
             text("folder", "The folder, like people or reference/decisions (default: the memory's root).",
                  cli=None),
         ), _list_notes, read_only=True, idempotent=True),
)

CORE = ("wake", "surface", "persist", "recall", "remember")
BY_NAME = {tool.name: tool for tool in TOOLS}


def select(only: list[str] | None = None, every: bool = False) -> list[Tool]:
    """The core tools, every tool, or those named (with or without the souveraine_ prefix)."""
    if every:
        return list(TOOLS)
    names = [n.strip().removeprefix(PREFIX) for part in (only or CORE) for n in part.split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise UsageError(f"no tool named '{unknown[0]}'; the tools are: {', '.join(BY_NAME)}")
    return [BY_NAME[n] for n in dict.fromkeys(names)]


def definitions(format: str = "openai", only: list[str] | None = None, every: bool = False) -> list[dict]:
    return [tool.render(format) for tool in select(only, every)]


def find(name: str) -> Tool:
    return select([name])[0]


_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list, "object": dict}


def check(tool: Tool, arguments) -> dict:
    """The arguments, checked against the tool's schema: a bad one is a usage error naming it."""
    if not isinstance(arguments, dict):
        raise UsageError(f"the arguments of {tool.name} must be a JSON object")
    params = {p.name: p for p in tool.params}
    unknown = sorted(set(arguments) - set(params))
    if unknown:
        raise UsageError(f"{tool.name} takes no '{unknown[0]}'; it takes: {', '.join(params) or 'nothing'}")
    for param in tool.params:
        if param.required and arguments.get(param.name) in (None, ""):
            raise UsageError(f"{tool.name} needs '{param.name}': {param.description}")
    for name, value in arguments.items():
        if value is not None:
            _check_value(tool.name, name, value, params[name].schema)
    return {name: value for name, value in arguments.items() if value is not None}


def _check_value(tool: str, name: str, value, schema: dict) -> None:
    kind = _TYPES[schema["type"]]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise UsageError(f"{tool}: '{name}' must be {schema['type']}, not {type(value).__name__}")
    if "enum" in schema and value not in schema["enum"]:
        raise UsageError(f"{tool}: '{name}' must be one of {', '.join(schema['enum'])}, not {value!r}")
    if kind is int and ("minimum" in schema and value < schema["minimum"]
                        or "maximum" in schema and value > schema["maximum"]):
        raise UsageError(f"{tool}: '{name}' must be between {schema.get('minimum', '…')} and "
                         f"{schema.get('maximum', '…')}, not {value}")
    if kind is list:
        for item in value:
            _check_value(tool, name, item, schema["items"])
