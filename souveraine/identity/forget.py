"""Forgetting: a memory deleted by its owner, at any tier — unless it carries a paid receipt.

``forget --key K`` forgets every memory with that key or none of them. A forgotten memory
leaves its identity's ``shaped_by`` and the effective expression in the same commit, and a
``forgetting`` entry on its chronicle says when (the chronicle itself is never rewritten).
"""

from souveraine.errors import Refused, UsageError
from souveraine.identity import chronicle, compose, identities, memories
from souveraine.store import layout, notes
from souveraine.store.memory import Memory


def forget(memory: Memory, memory_id: str | None = None, *, key: str | None = None) -> dict:
    if bool(memory_id) == bool(key):
        raise UsageError("give a memory ID or --key KEY (one of them)")
    paths = [memories.find(memory, memory_id)] if memory_id else by_key(memory, key)
    if not paths:
        raise UsageError(f"no memory has the key '{key}'; nothing was forgotten")
    targets = [_target(memory, relpath) for relpath in paths]
    for relpath, note, _ in targets:
        _refuse_receipt(relpath, note)
    shaping = any(str(note.get("tier")) in memories.ELEVATED for _, note, _ in targets)
    what = f"key {key}" if key else memories.describe(memories.split(targets[0][1].body)[0], 60)
    scope = "identity" if shaping else "memory"
    with memory.change(f"feat({scope}): forget {what}") as change:
        for relpath, note, identity in targets:
            _forget_one(memory, change, relpath, note, identity)
        if shaping:
            change.write(compose.EFFECTIVE, compose.render(memory))
    forgotten = [{"id": str(n["id"]), "path": p, "tier": str(n.get("tier"))} for p, n, _ in targets]
    return {"forgotten": forgotten, "commit": change.sha}


def by_key(memory: Memory, key: str) -> list[str]:
    """Every memory whose ``key`` property is ``key`` (a scan of memories/, rare by design)."""
    return [p for p in memories.paths(memory) if str(notes.peek(memory.path(p), "key").get("key", "")) == key]


def _target(memory: Memory, relpath: str) -> tuple:
    note = notes.read(memory.path(relpath))
    return relpath, note, identities.by_id(memory, str(note.get("identity_id") or ""))


def _refuse_receipt(relpath: str, note: notes.Note) -> None:
    _, held = memories.split(note.body)
    grants = [a.get("source_grant_id") for a in held or [] if isinstance(a, dict) and a.get("source_grant_id")]
    if grants:
        raise Refused(f"{relpath} carries a paid witness receipt (grant {grants[0]}), which is preserved; "
                      "nothing was forgotten", code="paid_memory_receipt_preserved")


def _forget_one(memory: Memory, change, relpath: str, note: notes.Note, identity) -> None:
    change.delete(relpath)
    if identity is not None and any(layout.same_memory(p, relpath) for p in identity.shaped_by):
        fresh = identities.load(memory, identity.handle)
        kept = [p for p in fresh.shaped_by if not layout.same_memory(p, relpath)]
        identities.set_shaped_by(memory, identity.handle, kept, change.write)
    if str(note.get("tier")) in memories.ELEVATED:
        chronicle.append(memory, change, identity.handle if identity else None, "forgetting", {
            "memory": str(note["id"]), "tier": str(note.get("tier")), "content_sha256": str(note.get("content_sha256", ""))})
