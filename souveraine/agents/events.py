"""Events: the memory's commits, read back as what happened to it.

Every mutation is already one commit, so events need no log of their own: they are
derived from git history, the same for the tool's commits and for a person's commit
from Obsidian. A commit yields events by the paths it touched and the lines it added:

- ``memory.added`` / ``memory.elevated`` / ``memory.attested`` / ``memory.changed`` /
  ``memory.forgotten`` — a file in memories/ added, raised a tier, given new witnesses,
  otherwise changed, deleted;
- ``chronicle.entry_added`` — one per ``## <moment> · <kind>`` entry appended;
- ``journal.appended`` — one per day file, with its new turns; ``reflection.added`` for a
  witness entry among them;
- ``inbox.queued`` / ``inbox.surfaced`` — items added to pending.md / the sent.md log;
- ``identity.created`` / ``identity.changed``, ``covenant.added`` / ``covenant.changed`` /
  ``covenant.revoked``, ``expression.changed`` (system/persona/effective.md),
  ``synthesis.written`` / ``synthesis.archived``, ``ledger.changed``, ``state.changed``;
- ``commit`` — a commit none of the above describes (a hand edit of a note, a defrag…), and
  a ``refactor`` commit, which only moves files (memories into their year folders).

``after_commit(root)`` runs the optional ``[events] command`` for each event of the new
commit. It is called while the committing command still holds the memory's lock, so it
only starts a detached delivery (``souveraine.agents.delivery``) and returns: the command
runs after the commit — and after the command that made it — never before, and can
never fail it.
"""

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from souveraine.language import patterns
from souveraine.store import conventions, git
from souveraine.store.memory import Memory

SEP, UNIT = "\x1e", "\x1f"
_FORMAT = f"--format={SEP}%H{UNIT}%cI{UNIT}%s"
# Paths whose added lines say what happened; the rest is read from names alone.
_DIFFED = ("memories/", "chronicle/", "journal/", "inbox/pending.md", "inbox/sent.md", "covenants/")
_CHRONICLE_ENTRY = patterns.compile(r"^## (\S+) · (\S+)\s*$")
_FIELD = patterns.compile(r"^- ([^:]+): (.*)$")
_PROPERTY = patterns.compile(r"^([a-z_]+): ?(.*)$")
_DID = patterns.compile(r"^\s*- '?(did:key:[1-9A-HJ-NP-Za-km-z]+)'?\s*$")
_MEMORY_PROPS = ("id", "tier", "identity_id", "visibility", "key", "description")


@dataclass
class Event:
    name: str
    commit: str
    at: str
    subject: str
    path: str | None = None
    data: dict = field(default_factory=dict)
    seq: int = 0

    @property
    def id(self) -> str:
        return f"{self.commit[:12]}.{self.seq}"

    def to_dict(self) -> dict:
        return {"event": self.name, "id": self.id, "commit": self.commit, "at": self.at,
                "subject": self.subject, "path": self.path, "data": self.data}


@dataclass
class Commit:
    sha: str
    at: str
    subject: str
    changes: list[tuple[str, str]]          # (status A/M/D, path)
    added: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)


def events(memory: Memory, since: str | None = None, until: str = "HEAD") -> list[Event]:
    """Every event of the commits after ``since`` (all history without it) up to ``until``, oldest first."""
    if git.head(memory.root) is None:
        return []
    start = _rev(memory, since) if since else None
    span = f"{start}..{until}" if start else until
    return [event for commit in commits(memory, span) for event in of_commit(memory, commit)]


def for_commit(memory: Memory, sha: str = "HEAD") -> list[Event]:
    """The events of one commit."""
    return [event for commit in commits(memory, sha, single=True) for event in of_commit(memory, commit)]


def head(memory: Memory) -> str | None:
    return git.head(memory.root)


def follow(memory: Memory, since: str | None = None, *, wait, interval: float = 1.0):
    """Events as commits arrive: those after ``since`` (or HEAD) first, then each new commit's.

    ``wait(interval)`` sleeps between looks at HEAD (tests pass their own); stop by raising.
    """
    last = _rev(memory, since) if since else head(memory)
    while True:
        now = head(memory)
        if now and now != last:
            yield from events(memory, last, until=now) if last else events(memory, until=now)
            last = now
        wait(interval)


def commits(memory: Memory, span: str, single: bool = False) -> list[Commit]:
    limit = ["-1"] if single else ["--reverse"]
    out = memory.git("log", *limit, "--no-renames", "--name-status", _FORMAT, span).stdout
    found = [_commit(chunk) for chunk in out.split(SEP) if chunk.strip()]
    if any(_is_diffed(path) for c in found for _, path in c.changes):
        _read_lines(memory, found, limit, span)
    return found


def of_commit(memory: Memory, commit: Commit) -> list[Event]:
    header = conventions.parse(commit.subject)
    found: list[Event] = []
    if header and header.scope == "init":
        found.append(Event("memory.initialized", commit.sha, commit.at, commit.subject, None,
                           {"paths": [path for _, path in commit.changes]}))
    elif header and header.type == "refactor":
        pass   # moves only (memories into their year folders): nothing was added or forgotten
    else:
        for status, path in commit.changes:
            found += _path_events(memory, commit, status, path)
    if not found:
        found.append(Event("commit", commit.sha, commit.at, commit.subject, None,
                           {"paths": [path for _, path in commit.changes]}))
    for seq, event in enumerate(found):
        event.seq = seq
    return found


# -- after each commit ----------------------------------------------------------------------


def after_commit(root) -> None:
    """Start the delivery of the new commit's events to ``[events] command``, if one is set."""
    memory = Memory(root)
    command = memory.config["events"]["command"]
    if not command:
        return
    sha = head(memory)
    if sha is None:
        return
    from souveraine.agents import delivery

    delivery.begin(memory, sha)
    log = memory.cache / "events.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    env = git.sealed_env(memory.root)
    env.pop("GIT_CEILING_DIRECTORIES", None)
    # The delivery imports this very package, wherever it was imported from.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]),
                                                    env.get("PYTHONPATH", "")) if p)
    with open(log, "ab") as out:
        subprocess.Popen([sys.executable, "-m", "souveraine.agents.delivery", str(memory.root), sha],
                         stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env,
                         cwd=str(memory.root), start_new_session=True)


# -- reading git ----------------------------------------------------------------------------


def _commit(chunk: str) -> Commit:
    lines = chunk.strip("\n").split("\n")
    sha, at, subject = lines[0].split(UNIT, 2)
    changes = []
    for line in lines[1:]:
        if "\t" in line:
            status, path = line.split("\t", 1)
            changes.append((status[0], path))
    return Commit(sha, at, subject, changes)


def _read_lines(memory: Memory, found: list[Commit], limit: list[str], span: str) -> None:
    """The lines each commit added to and removed from the diffed paths, in one git call."""
    out = memory.git("log", *limit, "--no-renames", "-p", "-U0", "--no-color", f"--format={SEP}%H",
                     span, "--", *(p.rstrip("/") for p in _DIFFED)).stdout
    by_sha = {c.sha: c for c in found}
    for chunk in out.split(SEP):
        if not chunk.strip():
            continue
        sha, _, diff = chunk.partition("\n")
        commit = by_sha.get(sha.strip())
        if commit is not None:
            _parse_diff(diff, commit)


def _parse_diff(diff: str, commit: Commit) -> None:
    path = None
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            path = None
        elif line.startswith("+++ ") or line.startswith("--- "):
            name = line[4:]
            if name != "/dev/null":
                path = _unquote(name[2:])
        elif path and line.startswith("+"):
            commit.added.setdefault(path, []).append(line[1:])
        elif path and line.startswith("-"):
            commit.removed.setdefault(path, []).append(line[1:])


def _unquote(name: str) -> str:
    if name.startswith('"'):
        return name.strip('"').encode("latin-1").decode("unicode_escape").encode("latin-1").decode("utf-8")
    return name


def _is_diffed(path: str) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in _DIFFED)


def _rev(memory: Memory, rev: str) -> str | None:
    """The commit after which events start: ``rev`` itself when it names a commit; for a date or a time
    (2026-12-01, 2026-12-01T09:00, yesterday, last week), the last commit before it, None when there is none."""
    from souveraine.errors import UsageError

    done = memory.git("rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
    if done.returncode == 0:
        return done.stdout.strip()
    moment = _moment(rev)
    if moment is None:
        raise UsageError(f"'{rev}' is neither a commit of this memory nor a date; give a commit id, a tag, "
                         "HEAD~N, or a date like 2026-12-01 or 'yesterday'")
    before = memory.git("rev-list", "-1", f"--before={moment.isoformat()}", "HEAD").stdout.strip()
    return before or None


def _moment(text: str):
    from souveraine.language import dates
    from souveraine.store import clock

    try:
        return clock.parse_moment(text)
    except ValueError:
        pass
    now = clock.now()
    found = dates.resolve(text, now, prefer="past")
    if found is None or found.start != 0 or found.end != len(text.strip()):
        return None
    return found.begins.replace(tzinfo=now.tzinfo)


# -- what a path's change means -------------------------------------------------------------


def _path_events(memory: Memory, commit: Commit, status: str, path: str) -> list[Event]:
    added = commit.added.get(path, [])

    def event(name: str, **data) -> Event:
        return Event(name, commit.sha, commit.at, commit.subject, path, data)

    if path.startswith("memories/") and path.endswith(".md"):
        return [_memory_event(memory, commit, status, path, event)]
    if path.startswith("chronicle/") and path.endswith(".md"):
        return [event("chronicle.entry_added", **entry) for entry in _chronicle_entries(path, added)]
    if path.startswith("journal/") and path.endswith(".md") and status != "D":
        return _journal_events(path, added, event)
    if path in ("inbox/pending.md", "inbox/sent.md"):
        name = "inbox.queued" if path.endswith("pending.md") else "inbox.surfaced"
        return [event(name, **item) for item in _inbox_items(added)]
    if path.startswith("identities/") and path.endswith(".md"):
        return [event("identity.created" if status == "A" else "identity.changed", handle=Path(path).stem)]
    if path.startswith("covenants/") and path.endswith(".md"):
        return [event(_covenant_name(status, added), handle=Path(path).stem)]
    if path == "system/persona/effective.md" and status != "D":
        return [event("expression.changed")]
    if path.startswith("system/synthesized/") and status == "A":
        return [event("synthesis.written")]
    if path.startswith("archive/") and status == "A":
        return [event("synthesis.archived")]
    if path.startswith("ledger/"):
        return [event("ledger.changed")]
    if path == "system/state.md":
        return [event("state.changed")]
    return []


def _memory_event(memory: Memory, commit: Commit, status: str, path: str, event) -> Event:
    after, before = _properties(commit.added.get(path, [])), _properties(commit.removed.get(path, []))
    if status == "A":
        return event("memory.added", **_pick(after))
    if status == "D":
        return event("memory.forgotten", **_pick(before))
    props = _pick({**_properties(_blob(memory, commit.sha, path)), **after})
    witnesses = _dids(commit.added.get(path, []))
    if "tier" in after and after["tier"] != before.get("tier"):
        return event("memory.elevated", **props, **({"attested_by": witnesses} if witnesses else {}))
    if witnesses:
        return event("memory.attested", **props, attested_by=witnesses)
    return event("memory.changed", **props, properties=sorted(set(after) | set(before)))


def _chronicle_entries(path: str, added: list[str]) -> list[dict]:
    entries: list[dict] = []
    handle = Path(path).stem
    for line in added:
        heading = _CHRONICLE_ENTRY.match(line)
        if heading:
            entries.append({"identity": "" if handle == "_project" else handle, "moment": heading[1],
                            "kind": heading[2], "fields": {}})
            continue
        field_line = _FIELD.match(line)
        if entries and field_line:
            entries[-1]["fields"][field_line[1]] = field_line[2].replace("`", "")
    return entries


def _journal_events(path: str, added: list[str], event) -> list[Event]:
    from souveraine.store import journal

    turns = journal.parse("\n".join(added), path)
    rows = [{"block": t.block_id, "time": f"{t.at:%H:%M:%S}" if t.at else None, "role": t.role,
             "session": t.session} for t in turns]
    found = [event("journal.appended", date=Path(path).stem, turns=rows)]
    for turn in turns:
        if turn.role == "reflection":
            found.append(event("reflection.added", date=Path(path).stem, block=turn.block_id,
                               link=f"[[{path[:-3]}#^{turn.block_id}]]"))
    return found


def _inbox_items(added: list[str]) -> list[dict]:
    from souveraine.tempos import inbox

    items = [inbox.parse_line(line) for line in added]
    return [item.to_dict() for item in items if item is not None]


def _covenant_name(status: str, added: list[str]) -> str:
    if status == "A":
        return "covenant.added"
    status_line = _properties(added).get("status")
    return "covenant.revoked" if status_line == "revoked" else "covenant.changed"


def _properties(lines: list[str]) -> dict[str, str]:
    """Top-level ``key: value`` lines of a frontmatter (as far as its closing ``---``)."""
    props: dict[str, str] = {}
    started = False
    for line in lines:
        if line.strip() == "---":
            if started:
                break
            started = True
            continue
        match = _PROPERTY.match(line)
        value = match[2].strip().strip("'\"") if match else ""
        if value:
            props[match[1]] = value
    return props


def _pick(props: dict[str, str]) -> dict[str, str]:
    return {key: props[key] for key in _MEMORY_PROPS if key in props}


def _dids(lines: list[str]) -> list[str]:
    return [m[1] for m in map(_DID.match, lines) if m]


def _blob(memory: Memory, sha: str, path: str) -> list[str]:
    done = memory.git("show", f"{sha}:{path}", check=False)
    return done.stdout.split("\n") if done.returncode == 0 else []
