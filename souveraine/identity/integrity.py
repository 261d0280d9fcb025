"""Integrity: what must hold of the witness's files in one snapshot, and across one change.

The hooks, ``verify`` and the remote's guard call it with a ``tree`` — any snapshot, read
through ``tree.read(relpath)`` (text or None), ``tree.names(folder)`` and ``tree.project_id``
— so the same rules hold however a commit was made:

- a witnessed memory (foundational or constitutive, or ever witnessed) keeps its text
  (``content_sha256``), its attestations (each verifying against its covenant's key), its
  tier (only ever raised), its expression patch and identity; its properties are read by
  the YAML reader ``store.notes`` uses, and YAML tags or a tier that is not one of the three
  words are refused; it is deleted only if it holds no paid receipt;
- a covenant's keys are the keys its DIDs encode; it is never rewritten or deleted, only
  revoked, renewed or extended by a signed rotation; no covenant holds a DID of this
  memory's own identities (the self-witness wall);
- an identity keeps its id and keys (a new key comes with its signed rotation), and lists in
  ``shaped_by`` only its own elevated memories, dropping one only when it is forgotten;
- ``system/persona/effective.md`` is exactly what the identities and their memories compose.

Episodic memories are free text: a fast, parser-free read decides that.
"""

import re
from functools import lru_cache
from typing import Callable

from souveraine.errors import NoteError, UsageError
from souveraine.identity import memories
from souveraine.store import layout, notes

COVENANTS, IDENTITIES = "covenants/", "identities/"
EFFECTIVE = "system/persona/effective.md"
_HEAD = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_WITNESSED = ("foundational", "constitutive", memories.ATTESTATIONS)
_IMMUTABLE = ("id", "identity_id")


# -- memories ------------------------------------------------------------------------------


def check(relpath: str, text: str, read: Callable[[str], str | None], before=(), tree=None) -> list[str]:
    """The problems of the memory ``relpath`` (one line each, saying what to do); [] when it holds.

    ``before`` are its texts in the parents; ``tree`` (when given) lets an elevated memory be
    checked against its identity's ``shaped_by``.
    """
    if not is_memory(relpath):
        return []
    meta, problem = _properties(relpath, text)
    if problem:
        return [problem]
    olds = [n for n in (_old_note(t) for t in before) if n is not None]
    tier = meta.get("tier", "episodic")
    if not isinstance(tier, str) or tier not in memories.TIERS:
        return [f"{relpath}: its tier is {tier!r}; a memory's tier is one of the words "
                f"{', '.join(memories.TIERS)} (raise it with 'souveraine elevate')"]
    if not olds and not _maybe_witnessed(meta, text):
        return []
    try:
        note = read_note(text)
    except NoteError as exc:
        return [f"{relpath}: a witnessed memory whose frontmatter does not parse ({exc}); restore it from git"]
    problems = [p for old in olds for p in _against(relpath, old, note)]
    if tier in memories.ELEVATED:
        problems += _elevated(relpath, note, read, tree)
    elif not olds:
        problems.append(f"{relpath}: an episodic memory carrying attestations or an elevation; "
                        "elevate it with 'souveraine elevate' instead of writing its properties by hand")
    return list(dict.fromkeys(problems))


def deleted(relpath: str, old_text: str) -> list[str]:
    """Why a memory may not be deleted: it carries a paid witness receipt."""
    if not is_memory(relpath) or "source_grant_id" not in old_text:
        return []
    old = _old_note(old_text)
    grants = _grants(old) if old is not None else []
    if not grants:
        return []
    return [f"{relpath}: it carries a paid witness receipt (grant {grants[0]}), which is preserved; "
            f"restore it (git checkout HEAD -- {relpath})"]


def is_memory(relpath: str) -> bool:
    """Anything Markdown under memories/ is judged as a memory (a year folder or not)."""
    return relpath.startswith(memories.FOLDER + "/") and relpath.endswith(".md")


def _properties(relpath: str, text: str) -> tuple[dict, str | None]:
    """The frontmatter as the fast reader gives it (the YAML reader when needed); a problem for tags."""
    head = _HEAD.match(text) if "!" in text else None
    if head and "!" in head[1] and _tagged(head[1]):
        return {}, (f"{relpath}: its frontmatter uses a YAML tag ('!…'); a memory's properties are plain "
                    "Obsidian values, so remove the tag")
    meta = notes.properties(text)
    if meta is not None:
        return meta, None
    try:
        return dict(notes.parse(text).meta), None
    except NoteError as exc:
        return {}, f"{relpath}: its frontmatter does not parse ({exc}); fix the YAML"


def _tagged(yaml_text: str) -> bool:
    try:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return any(isinstance(t, yaml.TagToken) for t in yaml.scan(yaml_text, Loader=loader))
    except Exception:  # not YAML at all: the frontmatter law reports it
        return False


def _maybe_witnessed(meta: dict, text: str) -> bool:
    return (meta.get("tier") in memories.ELEVATED or "attesters" in meta or "elevated" in meta
            or "\n" + memories.ATTESTATIONS in text)


def read_note(text: str) -> notes.Note:
    """A note as ``store.notes`` reads it: the flat reader (no YAML parser, ~100x faster) when the
    frontmatter is plain properties, else the YAML reader. Values the flat reader gives are text."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    head = _FLAT.match(text)
    meta = notes.properties(text) if head else None
    if meta is None:
        return notes.parse(text)
    return notes.Note(meta, text[head.end():])


_FLAT = re.compile(r"\A---\n(?:.*?\n)?---\n", re.DOTALL)


def _old_note(text: str) -> notes.Note | None:
    """A parent's version, parsed only when it may have been witnessed."""
    if not any(word in text for word in _WITNESSED):
        return None
    try:
        note = read_note(text)
    except NoteError:
        return None
    witnessed = str(note.get("tier")) in memories.ELEVATED or memories.split(note.body)[1]
    return note if witnessed else None


def _against(relpath: str, old: notes.Note, new: notes.Note) -> list[str]:
    """What a change may not do to a memory once witnessed."""
    out, restore = [], f"restore it ('git checkout HEAD -- {relpath}')"
    old_tier, new_tier = str(old.get("tier")), new.get("tier", "episodic")
    ranks = {t: i for i, t in enumerate(memories.TIERS)}
    if old_tier in ranks and ranks.get(new_tier, -1) < ranks[old_tier]:
        out.append(f"{relpath}: a {old_tier} memory is only ever raised, not set to {new_tier}; {restore}, "
                   "or forget it with 'souveraine forget'")
    for key in _IMMUTABLE:
        if str(old.get(key) or "") != str(new.get(key) or ""):
            out.append(f"{relpath}: its {key} is fixed once it is witnessed; {restore}")
    from souveraine.identity import compose

    if old_tier in memories.ELEVATED and compose.patch_of(old) != compose.patch_of(new):
        out.append(f"{relpath}: its expression patch is fixed at its elevation; {restore}, and shape further "
                   "through a new memory ('souveraine elevate … --wall/--deprecate-wall')")
    if old_tier == new_tier and str(old.get("elevated") or "") != str(new.get("elevated") or ""):
        out.append(f"{relpath}: its elevation date is fixed; {restore}")
    kept = memories.split(new.body)[1] or []
    for attestation in memories.split(old.body)[1] or []:
        if attestation not in kept:
            if isinstance(attestation, dict) and attestation.get("source_grant_id"):
                out.append(f"{relpath}: its paid witness receipt (grant {attestation['source_grant_id']}) is preserved; "
                           f"{restore}")
            else:
                out.append(f"{relpath}: an attestation it kept was removed or changed; attestations are only added; {restore}")
    return out


def _elevated(relpath: str, note: notes.Note, read, tree) -> list[str]:
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
    if tree is not None and note.get("identity_id"):
        problems += _listed(relpath, str(note["identity_id"]), tree)
    return problems


def _listed(relpath: str, identity_id: str, tree) -> list[str]:
    for identity in identities_of(tree):
        if identity.id == identity_id:
            if any(layout.same_memory(p, relpath) for p in identity.shaped_by):
                return []
            return [f"{relpath}: an elevated memory of {identity.handle} that {identity.path}'s shaped_by does not "
                    "list; elevate it with 'souveraine elevate' instead of writing its tier by hand"]
    return [f"{relpath}: elevated, but bound to identity {identity_id}, which is not one of this memory's"]


def _attestation_problems(note: notes.Note, held: list, read) -> list[str]:
    if not held:
        return []
    from souveraine.identity import witness

    project_id = _project_id(read)  # souveraine.toml is read once per snapshot: git's reader keeps it
    out = []
    for attestation in held:
        why = witness.stored_problem(attestation, str(note.get("id", "")), str(note.get("content_sha256", "")),
                                     read, project_id)
        if why:
            out.append(why)
    return out


def _grants(note: notes.Note) -> list[str]:
    return [str(a["source_grant_id"]) for a in memories.split(note.body)[1] or []
            if isinstance(a, dict) and a.get("source_grant_id")]


def _project_id(read) -> str:
    return _project_of(read("souveraine.toml") or "")


@lru_cache(maxsize=8)
def _project_of(toml_text: str) -> str:
    import tomllib

    try:
        return str(tomllib.loads(toml_text).get("project", {}).get("id", ""))
    except tomllib.TOMLDecodeError:
        return ""


# -- covenants and identities ----------------------------------------------------------------


def covenant(relpath: str, text: str | None, old_text: str | None, tree=None) -> list[str]:
    """A covenant file's problems: keys bound to its DIDs; only revoked, renewed or extended."""
    from souveraine.identity import covenants

    handle = relpath.removeprefix(COVENANTS).removesuffix(".md")
    if text is None:
        if old_text is None or _untrusted(old_text, handle, tree):
            return []  # a covenant that never held (a relabelled key, our own DID) may go
        return [f"{relpath}: a covenant is never deleted (past witnesses verify against it); restore it "
                f"(git checkout HEAD -- {relpath}) and revoke it with 'souveraine covenant revoke {handle}'"]
    try:
        new = covenants.from_text(text, handle)
    except (UsageError, NoteError) as exc:
        return [f"{relpath}: this covenant cannot be read ({exc}); restore it from git"]
    out = [f"{relpath}: {why}; a covenant holds only the keys its DIDs encode — add it from the counterparty's "
           "card ('souveraine covenant add --card FILE')" for why in new.problems()]
    if old_text is None:
        return out
    try:
        old = covenants.from_text(old_text, handle)
    except (UsageError, NoteError):
        return out
    changed = [name for name in ("did", "project_id", "handle", "created") if getattr(old, name) != getattr(new, name)]
    changed += [f"key {k}" for k, v in old.keys.items() if new.keys.get(k) != v]
    if new.rotations[: len(old.rotations)] != old.rotations:
        changed.append("rotations")
    if changed:
        out.append(f"{relpath}: a covenant is only revoked, renewed or extended by a signed rotation, but this change "
                   f"rewrites its {', '.join(changed)}; restore it (git checkout HEAD -- {relpath}) and enter a new "
                   "covenant instead")
    return out


def _untrusted(text: str, handle: str, tree) -> bool:
    from souveraine.identity import covenants

    try:
        found = covenants.from_text(text, handle)
    except (UsageError, NoteError):
        return True
    own = {d for i in identities_of(tree) for d in i.dids} if tree is not None else set()
    return bool(found.problems()) or bool(own & set(found.dids)) or (tree is not None and found.project_id == tree.project_id)


def identity(relpath: str, text: str | None, old_text: str | None, tree) -> list[str]:
    """An identity file's problems: its keys and rotations, and what its shaped_by lists."""
    from souveraine.identity import identities

    handle = relpath.removeprefix(IDENTITIES).removesuffix(".md")
    if text is None:
        return [f"{relpath}: an identity is never deleted (its DID keeps the self-witness wall); restore it "
                f"(git checkout HEAD -- {relpath})"]
    try:
        new = identities.from_note(notes.parse(text), handle)
    except (UsageError, NoteError) as exc:
        return [f"{relpath}: this identity cannot be read ({exc}); restore it from git"]
    out = [f"{relpath}: {why}; a new key comes only with 'souveraine identity rotate'" for why in new.problems()]
    old = None
    if old_text is not None:
        try:
            old = identities.from_note(notes.parse(old_text), handle)
        except (UsageError, NoteError):
            old = None
    if old is not None:
        changed = [name for name in ("id", "handle") if getattr(old, name) != getattr(new, name)]
        changed += [f"key {k}" for k, v in old.keys.items() if new.keys.get(k) != v]
        if new.rotations[: len(old.rotations)] != old.rotations:
            changed.append("rotations")
        if changed:
            out.append(f"{relpath}: this change rewrites the identity's {', '.join(changed)}, which never change; "
                       f"restore it (git checkout HEAD -- {relpath})")
        for gone in [p for p in old.shaped_by if not any(layout.same_memory(p, q) for q in new.shaped_by)]:
            if layout.located(gone, lambda place: tree.read(place) is not None):
                out.append(f"{relpath}: {gone} left shaped_by while the memory stays; a shaping memory leaves only "
                           "when it is forgotten ('souveraine forget'), or retire its wall with --deprecate-wall")
    for relpath_ in new.shaped_by:
        why = _shaping_problem(relpath_, new, tree)
        if why:
            out.append(f"{relpath}: shaped_by lists {relpath_}, {why}; only 'souveraine elevate' adds to shaped_by")
    return out


def _shaping_problem(relpath: str, identity, tree) -> str | None:
    at = layout.located(relpath, lambda place: tree.read(place) is not None)
    text = tree.read(at) if at else None
    if text is None:
        return None  # a dangling link shapes nothing (doctor reports broken links)
    meta, problem = _properties(relpath, text)
    if problem:
        return "whose frontmatter is not plain properties"
    if meta.get("tier") not in memories.ELEVATED:
        return f"which is {meta.get('tier', 'episodic')}, not elevated"
    if str(meta.get("identity_id") or "") != identity.id:
        return "which is bound to another identity"
    return None


def identities_of(tree) -> list:
    """The identities of a snapshot, in path order (as ``identities.all_identities`` lists them)."""
    from souveraine.identity import identities

    found = []
    for relpath in sorted(tree.names(IDENTITIES)):
        text = tree.read(relpath)
        if text is None or not relpath.endswith(".md"):
            continue
        try:
            found.append(identities.from_note(notes.parse(text), relpath.removeprefix(IDENTITIES).removesuffix(".md")))
        except (UsageError, NoteError):
            continue
    return found


def wall(tree) -> list[str]:
    """The self-witness wall: no covenant holds a DID of this memory's identities, or its project."""
    from souveraine.identity import covenants

    own = {d: i.handle for i in identities_of(tree) for d in i.dids}
    out = []
    for relpath in sorted(tree.names(COVENANTS)):
        text = tree.read(relpath)
        if text is None or not relpath.endswith(".md"):
            continue
        try:
            found = covenants.from_text(text, relpath.removeprefix(COVENANTS).removesuffix(".md"))
        except (UsageError, NoteError):
            continue
        mine = [d for d in found.dids if d in own]
        if mine:
            out.append(f"{relpath}: it holds {mine[0]}, this memory's own identity '{own[mine[0]]}': a witness must "
                       f"be other (attester_self_witness_forbidden); remove the covenant (git rm {relpath})")
        elif found.project_id and found.project_id == tree.project_id:
            out.append(f"{relpath}: its project_id is this memory's own project: a witness must be other "
                       f"(attester_self_witness_forbidden); remove the covenant (git rm {relpath})")
    return out


def effective(tree) -> list[str]:
    """effective.md is generated: it must be exactly what the snapshot's identities compose."""
    from souveraine.identity import compose

    everyone = identities_of(tree)
    if not everyone:
        return []  # the template a memory starts with: nothing composes yet
    actual = tree.read(EFFECTIVE)

    def read_note(relpath):
        text = tree.read(relpath)
        try:
            return None if text is None else notes.parse(text)
        except NoteError:
            return None

    if actual is not None and actual.replace("\r\n", "\n") == compose.render_from(read_note, everyone):
        return []
    return [f"{EFFECTIVE}: it is generated from identities/ and the memories that shaped them, and this snapshot's "
            "differs from what they compose; regenerate it with 'souveraine identity recompose' "
            f"(or restore it: git checkout HEAD -- {EFFECTIVE})"]
