"""Integrity: what must hold of a file under memories/ at one snapshot (hooks and verify call it).

A foundational or constitutive memory's text must match its ``content_sha256``; every
attestation it keeps must verify against its covenant's key at the same snapshot; a
constitutive memory needs at least one constitutive attestation. Episodic memories are
free text: nothing is checked. Fast by design: no GitPython, no YAML for episodic files.
"""

import re
import tomllib
from typing import Callable

from souveraine.errors import NoteError
from souveraine.identity import memories
from souveraine.store import notes

_TIER = re.compile(r"^tier:[ \t]*['\"]?([A-Za-z]+)", re.MULTILINE)
_HEAD = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n", re.DOTALL)


def check(relpath: str, text: str, read: Callable[[str], str | None]) -> list[str]:
    """The problems of ``relpath`` (one line each, saying what to do); [] when it holds."""
    if not (relpath.startswith(memories.FOLDER + "/") and relpath.endswith(".md")):
        return []
    head = _HEAD.match(text.replace("\r\n", "\n"))
    tier = _TIER.search(head[1]) if head else None
    if tier is None or tier[1] not in memories.ELEVATED:
        return []
    try:
        note = notes.parse(text)
    except NoteError as exc:
        return [f"{relpath}: a {tier[1]} memory whose frontmatter does not parse ({exc}); restore it from git"]
    return _elevated(relpath, note, read)


def _elevated(relpath: str, note: notes.Note, read) -> list[str]:
    tier = str(note.get("tier"))
    problems = []
    if not memories.hash_matches(note):
        problems.append(f"{relpath}: this {tier} memory's text no longer matches its content_sha256 — a witnessed "
                        "root cannot be edited by hand; restore it ('git checkout HEAD -- " + relpath + "'), "
                        "or forget it and remember the new text")
    _, held = memories.split(note.body)
    held = held or []
    problems += [f"{relpath}: {why}; restore the memory from git" for why in _attestation_problems(note, held, read)]
    if tier == "constitutive" and not any(isinstance(a, dict) and a.get("tier") == "constitutive" for a in held):
        problems.append(f"{relpath}: a constitutive memory without a constitutive witness; "
                        "elevate it with 'souveraine elevate --attestation FILE' instead of editing its tier")
    dids = list(dict.fromkeys(a.get("attester_did") for a in held if isinstance(a, dict)))
    if sorted(str(d) for d in note.get("attesters") or []) != sorted(str(d) for d in dids):
        problems.append(f"{relpath}: its attesters property does not list exactly the DIDs of its attestations; restore it from git")
    return problems


def _attestation_problems(note: notes.Note, held: list, read) -> list[str]:
    if not held:
        return []
    from souveraine.identity import witness

    project_id = _project_id(read)
    out = []
    for attestation in held:
        why = witness.stored_problem(attestation, str(note.get("id", "")), str(note.get("content_sha256", "")),
                                     read, project_id)
        if why:
            out.append(why)
    return out


def _project_id(read) -> str:
    try:
        return str(tomllib.loads(read("souveraine.toml") or "").get("project", {}).get("id", ""))
    except tomllib.TOMLDecodeError:
        return ""
