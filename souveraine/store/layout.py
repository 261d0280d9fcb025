"""The Cloister: a memory's layout as code.

Each region says where it lives, how much it weighs in the agent's context, and whether
git's laws keep it append-only. docs/MEMORY.md describes the same, file by file.
"""

import re
from collections import namedtuple
from functools import lru_cache

from souveraine.language import patterns

PINNED = "pinned"          # in every wake
PROGRESSIVE = "progressive"  # indexed in wake, loaded when needed
ON_DEMAND = "on demand"    # loaded only when asked for
QUERYABLE = "queryable only"  # reached through recall, never loaded whole
CACHE = "cache"            # git-ignored, rebuildable
CONFIG = "config"


# A region: its path glob, its weight, its purpose, and whether git's laws keep it
# append-only. A namedtuple, not a dataclass: the hooks import this module on every
# commit, and dataclasses' import alone costs them more than their own work.
Region = namedtuple("Region", "pattern weight purpose append_only", defaults=(False,))


CLOISTER: tuple[Region, ...] = (
    Region("souveraine.toml", CONFIG, "project id, models' context physics, modes, tempos, privacy"),
    Region("system/metacognition/subconscious.md", PINNED, "the inner voice (its tail is pinned)", True),
    Region("system/synthesized/**", PINNED, "dense essence written by the archivist"),
    Region("system/persona/effective.md", PINNED, "the effective expression, regenerated on every identity change"),
    Region("system/state.md", PINNED, "workflow state: phase, unit, files touched"),
    Region("system/domains/**", PINNED, "one index per life area: links into domains/, never the content"),
    Region("system/**", PINNED, "core identity: persona, principles, human, project, conventions"),
    Region("memories/**", ON_DEMAND, "tiered memories, one file each"),
    Region("identities/**", ON_DEMAND, "identities: DID, public keys, declared expression"),
    Region("covenants/**", ON_DEMAND, "the witness graph: counterparties' DIDs and keys"),
    Region("chronicle/**", ON_DEMAND, "recognition and seal moments", True),
    Region("inbox/sent.md", ON_DEMAND, "the delivery log of surfaced thoughts", True),
    Region("inbox/**", ON_DEMAND, "the nervous system's queues"),
    Region("ledger/**", ON_DEMAND, "commitments, assumptions, patterns, drift"),
    Region("journal/**", QUERYABLE, "raw experience, one file a day", True),
    Region("archive/**", QUERYABLE, "historical syntheses"),
    Region("reference/reports/**", PROGRESSIVE, "unit reports", True),
    Region("reference/decisions/**", PROGRESSIVE, "design decisions, ADR-style, read by the workflow's ORIENT"),
    Region("reference/**", PROGRESSIVE, "architecture, work units, decisions"),
    Region("troubleshooting/**", ON_DEMAND, "recurring bug patterns: symptom, cause, fix"),
    Region("people/**", ON_DEMAND, "one file per person, with people/_index.md"),
    Region("domains/**", ON_DEMAND, "knowledge by domain"),
    Region(".skills/**", ON_DEMAND, "workflow rules as agent skills"),
    Region(".souveraine/**", CACHE, "search index and locks, git-ignored"),
)

APPEND_ONLY: tuple[str, ...] = tuple(r.pattern for r in CLOISTER if r.append_only)

# Folders every memory has; init creates them (with a note, so git keeps them).
FOLDERS = (
    "system/persona", "system/project", "system/human", "system/human/prefs", "system/domains",
    "system/synthesized", "system/metacognition", "memories", "identities", "covenants", "chronicle",
    "inbox", "ledger", "journal", "archive", "reference", "reference/decisions", "troubleshooting",
    "people", "domains", ".skills",
)

# The Cloister's named files (§IX.3 and §IX.6 of the constitution): where each kind of
# durable knowledge belongs, so every tempo routes to the same place.
PERSONA_IDENTITY = "system/persona/identity.md"        # who the agent is: values, scope
PERSONA_PRINCIPLES = "system/persona/principles.md"    # how it operates, epistemic rules
PERSONA_INFRASTRUCTURE = "system/persona/infrastructure.md"   # where it runs, channels, cron
PERSONA_EFFECTIVE = "system/persona/effective.md"      # generated: declared + shaping memories
HUMAN_IDENTITY = "system/human/identity.md"            # the human: background, work, what they build
PREFS_COMMUNICATION = "system/human/prefs/communication.md"   # tone, length, when to push back
PREFS_WORKFLOW = "system/human/prefs/workflow.md"      # habits, schedule, proactive or reactive
PREFS_TOPICS = "system/human/prefs/topics.md"          # interests, recurring themes
HUMAN_PREFS = (PREFS_COMMUNICATION, PREFS_WORKFLOW, PREFS_TOPICS)
RELATIONSHIPS = "system/human/relationships.md"        # close people: an index into people/
DOMAIN_INDEXES = {name: f"system/domains/{name}.md" for name in ("work", "learning", "health", "finance")}
CONVENTIONS = "system/conventions.md"                  # rules across all domains, never-share
PROJECT_ARCHITECTURE = "system/project/architecture.md"
PROJECT_CONVENTIONS = "system/project/conventions.md"
PROJECT_DO_NOTS = "system/project/do-nots.md"
PROJECT_LEARNINGS = "system/project/learnings.md"      # consolidated from reference/reports/
STATE = "system/state.md"
INNER_VOICE = "system/metacognition/subconscious.md"
PEOPLE_INDEX = "people/_index.md"
ARCHITECTURE_DETAIL = "reference/architecture/"
WORK = "reference/work/"                               # reference/work/<unit>/develop.md, review.md, …
REPORTS = "reference/reports/"                         # reference/reports/<unit>.md, append-only
DECISIONS = "reference/decisions/"                     # ADRs: reference/decisions/NNNN-title.md
TROUBLESHOOTING = "troubleshooting/"                   # one recurring bug pattern per note

# Files whose template holds only guidance (what belongs there). Until someone writes in
# one, the wake names it in a line instead of pinning the guidance at every session.
GUIDED = (PERSONA_INFRASTRUCTURE, HUMAN_IDENTITY, *HUMAN_PREFS, RELATIONSHIPS, *DOMAIN_INDEXES.values(),
          PROJECT_ARCHITECTURE, PROJECT_CONVENTIONS, PROJECT_DO_NOTS, PROJECT_LEARNINGS)


def region(relpath: str) -> Region | None:
    """The first region whose pattern matches ``relpath`` (a POSIX path inside the memory)."""
    for candidate in CLOISTER:
        if glob_match(candidate.pattern, relpath):
            return candidate
    return None


def weight(relpath: str) -> str | None:
    found = region(relpath)
    return found.weight if found else None


def is_append_only(relpath: str, extra_globs: tuple[str, ...] | list[str] = ()) -> bool:
    return any(glob_match(g, relpath) for g in (*APPEND_ONLY, *extra_globs))


def is_pinned(relpath: str) -> bool:
    return weight(relpath) == PINNED


def glob_match(pattern: str, relpath: str) -> bool:
    """Match a POSIX path against a glob where ``**`` crosses folders and ``*`` does not."""
    return _compile(pattern).fullmatch(relpath) is not None


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return patterns.compile("".join(out))


# -- where a memory lives ------------------------------------------------------------------
# One file per memory, in the folder of the year it was created: memories/<YYYY>/<name>.md,
# where <name> starts with that date (so the folder is the name's first four digits). Memories
# written before year folders sit in memories/ itself until 'doctor --fix' moves them; every
# reader accepts both places, and a memory is known by its name, which is unique.

MEMORIES = "memories"
_YEAR = patterns.compile(r"\d{4}")


def memory_path(name: str) -> str:
    """Where the memory named ``name`` (a file name, '.md' included) is written."""
    year = name[:4]
    return f"{MEMORIES}/{year}/{name}" if _YEAR.fullmatch(year) else f"{MEMORIES}/{name}"


def is_year(folder: str) -> bool:
    """Whether ``folder`` (a name inside memories/) is a year folder."""
    return _YEAR.fullmatch(folder) is not None


def is_memory(relpath: str) -> bool:
    """Whether ``relpath`` is a memory: a Markdown file in memories/ or one of its year folders."""
    if not relpath.startswith(MEMORIES + "/") or not relpath.endswith(".md"):
        return False
    inner = relpath[len(MEMORIES) + 1:].split("/")
    return len(inner) == 1 or (len(inner) == 2 and is_year(inner[0]))


def memory_name(relpath: str) -> str:
    """A memory's name: its file name, the same in either place."""
    return relpath.rsplit("/", 1)[-1]


def memory_places(relpath: str) -> tuple[str, ...]:
    """Where the memory named by ``relpath`` may be: there, then in the other place (its year
    folder or memories/ itself). A link or ``shaped_by`` entry written before the memory moved
    still finds it."""
    if not is_memory(relpath):
        return (relpath,)
    name = memory_name(relpath)
    return tuple(dict.fromkeys((relpath, memory_path(name), f"{MEMORIES}/{name}")))


def located(relpath: str, exists) -> str | None:
    """The first of ``memory_places(relpath)`` for which ``exists(place)`` holds, or None."""
    return next((place for place in memory_places(relpath) if exists(place)), None)


def same_memory(a: str, b: str) -> bool:
    """Whether two memory paths name one memory (its name is the same in either place)."""
    return a == b or (is_memory(a) and is_memory(b) and memory_name(a) == memory_name(b))


def is_flat(relpath: str) -> bool:
    """A memory still in memories/ itself, where an older version wrote it, that belongs in a year folder."""
    return is_memory(relpath) and relpath.count("/") == 1 and memory_path(memory_name(relpath)) != relpath
