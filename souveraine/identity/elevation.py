"""Elevation: a memory becomes foundational or constitutive, and shapes its identity.

``elevate`` and ``attest`` run the checks in order — the memory belongs here, each signature
verifies, constitutive has an active witness, no witness is our own, the text still matches
its hash — then write every effect in ONE commit: the memory's tier, patch and attestations,
the identity's ``shaped_by``, a ``recognition`` on the subject's chronicle, and
system/persona/effective.md. A refusal changes nothing.
"""

from souveraine.errors import Refused, UsageError
from souveraine.identity import chronicle, compose, identities, memories, witness
from souveraine.store import clock, layout, notes
from souveraine.store.memory import Memory

def elevate(memory: Memory, memory_id: str, tier: str, *, patch: dict | None = None,
            attestations: list[dict] = ()) -> dict:
    """Raise a memory to ``tier`` with an optional expression patch and witnesses' attestations."""
    if tier not in memories.ELEVATED:
        raise UsageError(f"--tier must be foundational or constitutive, not '{tier}'")
    patch = {k: v for k, v in (patch or {}).items() if v}
    relpath, note, identity = belonging(memory, memory_id)
    current = str(note.get("tier", "episodic"))
    if memories.TIERS.index(current) >= memories.TIERS.index(tier):
        raise UsageError(f"memory {note['id'][:8]} is already {current}; a memory is only ever raised")
    if patch and current != "episodic":
        raise UsageError(f"memory {note['id'][:8]} already carries its patch; shape further through a new memory")
    if patch and identity is None:
        raise UsageError(f"memory {note['id'][:8]} is bound to no identity, so its patch would shape nobody; "
                         "remember it again with --identity HANDLE")
    admitted = _distinct(witness.admit(memory, note["id"], str(note["content_sha256"]), tier, attestations))
    memories.require_intact(relpath, note)
    with memory.change(f"feat(identity): elevate {note['id'][:8]} to {tier}") as change:
        _raise_tier(note, tier, patch)
        _write(memory, change, relpath, note, admitted, identity, moved=True)
    return _result(relpath, note, admitted, change.sha)


def attest(memory: Memory, memory_id: str, attestations: list[dict]) -> dict:
    """Add witnesses to a memory already elevated, at its tier (a witness who signs later)."""
    if not attestations:
        raise UsageError("give at least one --attestation FILE")
    relpath, note, identity = belonging(memory, memory_id)
    tier = str(note.get("tier", "episodic"))
    if tier not in memories.ELEVATED:
        raise UsageError(f"memory {note['id'][:8]} is episodic; elevate it first ('souveraine elevate {note['id'][:8]} --tier …')")
    admitted = witness.admit(memory, note["id"], str(note["content_sha256"]), tier, attestations)
    memories.require_intact(relpath, note)
    _, held = memories.split(note.body)
    new = _distinct(admitted, held or [])
    if not new:
        raise UsageError(f"memory {note['id'][:8]} already carries these attestations")
    with memory.change(f"feat(identity): attest {note['id'][:8]} as {tier}") as change:
        _write(memory, change, relpath, note, new, identity, moved=False)
    return _result(relpath, note, new, change.sha)


def belonging(memory: Memory, memory_id: str) -> tuple[str, notes.Note, identities.Identity | None]:
    """The memory's file, note and identity; refused unless the memory is this memory's own."""
    relpath, note = memories.load(memory, memory_id)
    _, held = memories.split(note.body)
    if any(not isinstance(a, dict) for a in held or []):
        raise Refused(f"{relpath}: its {memories.ATTESTATIONS} block is not readable JSON; restore it from git",
                      code="content_changed")
    bound = str(note.get("identity_id") or "")
    if not bound:
        return relpath, note, None
    identity = identities.by_id(memory, bound)
    if identity is None:
        raise Refused(f"{relpath} is bound to identity {bound}, which is not one of this memory's; "
                      "a memory is elevated only where its identity lives", code="memory_not_here")
    return relpath, note, identity


def _raise_tier(note: notes.Note, tier: str, patch: dict) -> None:
    properties = {"tier": tier, "elevated": clock.now().replace(microsecond=0).isoformat(),
                  "decay_protected": True, **compose.patch_properties(patch)}
    for key, value in properties.items():
        _set_before(note, key, value, "description")
    note["tags"] = ["memory", tier]


def _write(memory: Memory, change, relpath: str, note: notes.Note, admitted: list[dict],
           identity: identities.Identity | None, moved: bool) -> None:
    text, held = memories.split(note.body)
    every = list(held or []) + admitted
    _set_before(note, "attesters", _unique(a.get("attester_did", "") for a in every), "description")
    note.body = memories.join(text, every)
    change.write_note(relpath, note)
    if identity is not None and (moved or relpath not in identity.shaped_by):
        order = [p for p in identity.shaped_by if not layout.same_memory(p, relpath)] + [relpath]
        identities.set_shaped_by(memory, identity.handle, order, change.write)
    for attestation in admitted:   # one recognition per attestation, named as the witness's seal names it
        chronicle.append(memory, change, identity.handle if identity else None, "recognition", {
            "attestation": attestation["attestation_id"], "memory": note["id"], "path": relpath,
            "tier": attestation["tier"], "content_sha256": note["content_sha256"],
            "witnessed by": attestation["attester_did"], "subject": identity.did if identity else ""})
    change.write(compose.EFFECTIVE, compose.render(memory))


def _set_before(note: notes.Note, key: str, value, anchor: str) -> None:
    """Set a property, placing a new one before ``anchor`` so related properties stay together."""
    meta = note.meta
    if key in meta or anchor not in meta:
        meta[key] = value
    else:
        meta.insert(list(meta).index(anchor), key, value)


def _distinct(attestations: list[dict], held: list[dict] = ()) -> list[dict]:
    """One attestation per attester and tier: a second copy adds nothing."""
    seen = {(h.get("attester_did"), h.get("tier")) for h in held if isinstance(h, dict)}
    out = []
    for attestation in attestations:
        key = (attestation["attester_did"], attestation["tier"])
        if key not in seen:
            seen.add(key)
            out.append(attestation)
    return out


def _unique(items) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _result(relpath: str, note: notes.Note, admitted: list[dict], sha: str | None) -> dict:
    return {"id": note["id"], "path": relpath, "tier": note["tier"], "elevated": str(note.get("elevated", "")),
            "attesters": list(note.get("attesters") or []), "attested_now": [a["attester_did"] for a in admitted],
            "commit": sha}
