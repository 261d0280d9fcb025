"""The commit conventions: Conventional Commits 1.0 and the memory's own vocabulary.

Every commit a tool makes is checked here before it is made; the commit-msg hook
checks the same for commits made by hand.
"""

import re
from collections import namedtuple

from souveraine.language import patterns

HEADER = patterns.compile(
    r"^(?P<type>[A-Za-z]+)(?:\((?P<scope>[^()\r\n]+)\))?(?P<breaking>!)?: (?P<description>\S.*)$"
)

TYPES = {
    "feat": "something new in the memory: a memory, an identity, a covenant, a bootstrap",
    "fix": "a correction: a rule or fact set right, a broken link mended",
    "chore": "the tempos' routine: journal turns, syntheses, digests, defrag",
    "refactor": "moves and renames of identical content only",
    "docs": "notes for people: reference, reports, decisions",
    "revert": "undoing an earlier commit",
    "perf": "a change for speed",
    "test": "tests",
    "build": "build and packaging",
    "ci": "continuous integration",
    "style": "formatting only",
}

# The scopes the tools use, documented in docs/LAWS.md; others are allowed.
SCOPES = {
    "init": "the memory's bootstrap",
    "memory": "memories, rules and corrections",
    "journal": "turns appended by persist",
    "inbox": "surfacing and the inbox",
    "ledger": "commitments, assumptions, patterns, drift",
    "reflect": "the N+25 witness entries",
    "archive": "the archivist's syntheses",
    "digest": "the weekly digest",
    "defrag": "the monthly defrag",
    "identity": "identities, elevations, attestations, forgetting",
    "covenant": "the witness graph",
    "state": "workflow state",
    "fork": "parallel selves",
    "hooks": "the laws' hooks",
    "sync": "merges of another device's work (souveraine sync)",
}

# Messages git writes itself, accepted as they are only where git's own mark is there too:
# a merge's parents, a revert's "This reverts commit <id>." A subject alone proves nothing.
MERGE = patterns.compile(r"^Merge ")
REVERT = patterns.compile(r"^(?:Revert|Reapply) \"")
REVERTS = patterns.compile(r"^This reverts commit [0-9a-f]{7,64}\.?$", re.MULTILINE)
# Autosquash markers ask for a history rewrite that a memory never makes.
AUTOSQUASH = patterns.compile(r"^(fixup|squash|amend)! ")

# `git commit -v` puts the diff below this line; git drops everything after it.
_SCISSORS = patterns.compile(r"^\S ?-{24} >8 -{24}\s*$", re.MULTILINE)

# The first commit of an adopted vault (bootstrap.ADOPT_MESSAGE): its notes predate the laws.
ADOPTION = "feat(init): adopt vault as a memory"

# A namedtuple, not a dataclass: the commit-msg hook imports this module on every commit.
Header = namedtuple("Header", "type scope breaking description")


def parse(message: str) -> Header | None:
    """The header of a message, or None when it is not a Conventional Commit."""
    first = message.lstrip("\n").split("\n", 1)[0].rstrip("\r")
    match = HEADER.match(first)
    if not match:
        return None
    return Header(match["type"].lower(), match["scope"], bool(match["breaking"]), match["description"])


def clean(message: str) -> str:
    """The message as git stores it: no comment lines, nothing below the scissors."""
    cut = _SCISSORS.search(message)
    if cut:
        message = message[:cut.start()]
    lines = [line for line in message.split("\n") if not line.startswith("#")]
    return "\n".join(lines).strip("\n")


def problem(message: str, merge: bool = False) -> str | None:
    """Why the message breaks the conventions, or None when it keeps them.

    ``merge``: the commit has two parents or more, so a message git wrote for it is accepted.
    """
    text = clean(message)
    if not text.strip():
        return "the commit message is empty"
    if (merge and MERGE.match(text)) or (REVERT.match(text) and REVERTS.search(text)):
        return None
    if MERGE.match(text) or REVERT.match(text):
        what = "a merge, but this commit has one parent" if MERGE.match(text) else "a revert, but it names no reverted commit"
        return (f"'{text.splitlines()[0][:72]}' reads like git's message for {what}; "
                "write a Conventional Commit instead, e.g. 'fix(memory): correct the birthday'")
    squash = AUTOSQUASH.match(text)
    if squash:
        return (f"'{squash[1]}!' marks a commit to be squashed into another by a rebase, a history rewrite "
                "a memory never makes; write a Conventional Commit instead, e.g. 'fix(memory): correct the birthday'")
    header = parse(text)
    if header is None:
        return (f"'{text.splitlines()[0][:72]}' is not a Conventional Commit; "
                "write 'type(scope): what changed', e.g. 'fix(memory): correct the birthday'")
    if header.type not in TYPES:
        return f"unknown commit type '{header.type}'; use one of: {', '.join(TYPES)}"
    body = text.split("\n")
    if len(body) > 1 and body[1].strip():
        return "the header must be followed by a blank line before the body"
    return None
