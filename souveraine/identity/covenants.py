"""Covenants: the witness graph — counterparties of other projects whose signatures we accept.

``covenants/HANDLE.md`` holds a counterparty's DID, public keys (``ID=z6Mk…``), project id
and status (active | revoked). A revoked covenant stays: past attestations still verify
against its keys, but it witnesses nothing new. Each key is the one its did:key encodes,
under the id ``did#multibase``; a key of a later DID enters only with the rotation
statement the earlier key signed (``rotations``). The laws refuse any other change:
covenants are only added, revoked (or renewed), and extended by rotations.
"""

from dataclasses import dataclass, field
from functools import lru_cache

from souveraine.errors import Refused, UsageError
from souveraine.identity import did as didkey
from souveraine.identity import identities, rotation
from souveraine.store import clock, notes
from souveraine.store.memory import Memory

FOLDER = "covenants"


@dataclass
class Covenant:
    handle: str
    did: str
    keys: dict[str, bytes]
    project_id: str
    status: str = "active"
    created: str = ""
    revoked: str = ""
    rotations: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def dids(self) -> list[str]:
        """The covenant's DID, then each DID it rotated to (a broken chain stops where it breaks)."""
        return rotation.chain(self.did, self.rotations)[0]

    def key_for(self, attester: str, key_id: str) -> bytes | None:
        """The public key under ``key_id``, if it is ``attester``'s own and ``attester`` is this counterparty."""
        if attester not in self.dids or didkey.did_of(key_id) != attester:
            return None
        key = self.keys.get(key_id)
        return key if key is not None and didkey.bound(key_id, key) is None else None

    def problems(self) -> list[str]:
        """Why this covenant cannot be trusted as written (its keys, its DID, its rotations)."""
        out = []
        try:
            didkey.decode(self.did)
        except UsageError as exc:
            out.append(f"its did is not an Ed25519 did:key ({exc})")
        dids, broken = rotation.chain(self.did, self.rotations)
        if broken:
            out.append(broken)
        for key_id, key in self.keys.items():
            why = didkey.bound(key_id, key)
            if why is None and didkey.did_of(key_id) not in dids:
                why = f"the key {key_id} is of a DID this covenant never rotated to"
            if why:
                out.append(why)
        if not self.project_id.strip():
            out.append("it names no project_id")
        return out

    @property
    def path(self) -> str:
        return path_for(self.handle)

    def to_dict(self) -> dict:
        return {"handle": self.handle, "did": self.did, "project_id": self.project_id, "status": self.status,
                "keys": {k: didkey.multibase(v) for k, v in self.keys.items()},
                "created": self.created, "revoked": self.revoked, "rotations": list(self.rotations),
                "path": self.path}


def path_for(handle: str) -> str:
    return f"{FOLDER}/{handle}.md"


def from_text(text: str, handle: str) -> Covenant:
    """A covenant from its file's text (also used by integrity, on any snapshot)."""
    return _from_text(text, handle)


@lru_cache(maxsize=64)
def _from_text(text: str, handle: str) -> Covenant:
    from souveraine.identity.integrity import read_note

    note = read_note(text)
    return Covenant(
        handle=str(note.get("handle") or handle), did=str(note.get("did", "")),
        keys=dict(didkey.parse_key_entry(e) for e in note.get("keys") or []),
        project_id=str(note.get("project_id", "")), status=str(note.get("status") or "active"),
        created=str(note.get("created", "")), revoked=str(note.get("revoked") or ""),
        rotations=[str(r) for r in note.get("rotations") or []],
    )


def load(memory: Memory, handle: str) -> Covenant:
    identities.check_handle(handle)
    if not memory.exists(path_for(handle)):
        raise UsageError(f"no covenant '{handle}' here; 'souveraine covenant list' shows them", code="unknown_covenant")
    return from_text(memory.read_text(path_for(handle)), handle)


def all_covenants(memory: Memory) -> list[Covenant]:
    folder = memory.root / FOLDER
    found = sorted(folder.glob("*.md")) if folder.is_dir() else []
    return [from_text(p.read_text(encoding="utf-8"), p.stem) for p in found]


def read_card(source: str) -> dict:
    """A card as ``identity export`` prints it, from a file path or '-' text already read."""
    from souveraine.store import given

    return parse_card(given.read(source, "the card", 1024 * 1024))


def parse_card(text: str) -> dict:
    from souveraine.store import given

    try:
        card = given.json_value(text, "the card")
        keys = {str(k["id"]): didkey.public_key(str(k["public_key"])) for k in card["keys"]}
        return {"handle": str(card.get("handle", "")), "did": str(card["did"]), "keys": keys,
                "project_id": str(card["project_id"]), "rotations": [str(r) for r in card.get("rotations") or []]}
    except (ValueError, KeyError, TypeError):
        raise UsageError("the card is not one 'souveraine identity export' prints (JSON with did, keys, project_id)",
                         code="bad_card") from None


def add(memory: Memory, *, did: str, keys: dict[str, bytes], project_id: str, handle: str = "",
        rotations: list[str] = ()) -> dict:
    """Enter a covenant with a counterparty of another project (or renew a revoked one).

    A card whose rotations lead from a covenant's DID to a new one extends that covenant instead.
    """
    didkey.decode(did)
    if not keys:
        raise UsageError("a covenant needs at least one public key; give --key ID=PUBKEY or a card")
    if not project_id.strip():
        raise UsageError("a covenant needs the counterparty's project id; give --project PROJECT_ID or a card")
    existing = {c.handle: c for c in all_covenants(memory)}
    rotated = next((c for c in existing.values() if rotations and c.did != did and c.did in
                    rotation.chain(_first(rotations), rotations)[0]), None)
    if rotated is not None:
        return accept_rotation(memory, rotated, did, keys, list(rotations))
    rotations = list(rotations)
    start = _first(rotations) if rotations else did
    _require_bound(Covenant("", start, keys, project_id, rotations=rotations), did)
    for own in rotation.chain(start, rotations)[0]:
        _refuse_self(memory, own, project_id)
    did = start
    handle = identities.check_handle(handle or _handle_from(did))
    same_did = [c for c in existing.values() if c.did == did and c.handle != handle]
    if same_did:
        raise Refused(f"{did} is already in the covenant '{same_did[0].handle}'; revoke it first or use that one",
                      code="covenant_exists")
    before = existing.get(handle)
    if before and (before.status == "active" or before.did != did):
        raise Refused(f"a covenant named '{handle}' exists ({before.status}, {before.did}); choose another --handle",
                      code="covenant_exists")
    note = notes.new({
        "type": "covenant",
        "handle": handle,
        "did": did,
        "keys": [didkey.key_entry(k, v) for k, v in keys.items()],
        "project_id": project_id,
        "status": "active",
        "created": before.created if before else clock.now().replace(microsecond=0).isoformat(),
        "revoked": "",
        **({"rotations": rotations} if rotations else {}),
        "description": f"A covenant with {handle}, who may witness this memory's identities.",
        "tags": ["covenant"],
    }, f"# Covenant with {handle}\n\n`{did}` of project `{project_id}` may witness the identities "
       "of this memory. Its signatures count while this covenant is active.\n")
    verb = "renew" if before else "enter"
    with memory.change(f"feat(covenant): {verb} covenant with {handle}") as change:
        change.write_note(path_for(handle), note)
    return {**from_text(notes.dumps(note), handle).to_dict(), "commit": change.sha}


def revoke(memory: Memory, handle: str) -> dict:
    covenant = load(memory, handle)
    if covenant.status == "revoked":
        return {**covenant.to_dict(), "commit": None}
    relpath = path_for(handle)
    note = notes.read(memory.path(relpath))
    note["status"] = "revoked"
    note["revoked"] = clock.now().replace(microsecond=0).isoformat()
    with memory.change(f"feat(covenant): revoke covenant with {handle}") as change:
        change.write_note(relpath, note)
    return {**load(memory, handle).to_dict(), "commit": change.sha}


def accept_rotation(memory: Memory, covenant: Covenant, did: str, keys: dict[str, bytes], rotations: list[str]) -> dict:
    """Extend ``covenant`` to the DID its counterparty rotated to (the old keys stay, for old witnesses)."""
    if rotations[: len(covenant.rotations)] != covenant.rotations:
        raise Refused(f"the card's rotations do not continue those the covenant with {covenant.handle} holds",
                      code="bad_rotation")
    extended = Covenant(covenant.handle, covenant.did, {**covenant.keys, **keys}, covenant.project_id,
                        rotations=rotations)
    _require_bound(extended, did)
    for own in extended.dids:
        _refuse_self(memory, own, covenant.project_id)
    relpath = path_for(covenant.handle)
    note = notes.read(memory.path(relpath))
    note["keys"] = [didkey.key_entry(k, v) for k, v in extended.keys.items()]
    note["rotations"] = rotations
    with memory.change(f"feat(covenant): accept the new key of {covenant.handle}") as change:
        change.write_note(relpath, note)
    return {**load(memory, covenant.handle).to_dict(), "commit": change.sha}


def _require_bound(covenant: Covenant, did: str) -> None:
    """Refuse a covenant whose keys are not the keys its DIDs encode (a relabelled key)."""
    problems = covenant.problems()
    if did not in covenant.dids:
        problems.insert(0, f"the card's rotations do not lead from {covenant.did} to {did}")
    if problems:
        raise Refused(f"{problems[0]}; ask the counterparty for the card 'souveraine identity export' prints",
                      code="covenant_key_mismatch")


def _first(rotations: list[str]) -> str:
    return rotation.parse(rotations[0])[0]


def _refuse_self(memory: Memory, did: str, project_id: str) -> None:
    if project_id == memory.project_id:
        raise Refused(f"project {project_id} is this memory's own; a witness must be of another project",
                      code="attester_self_witness_forbidden")
    own = {d: i.handle for i in identities.all_identities(memory) for d in i.dids}
    if did in own:
        raise Refused(f"{did} is this memory's own identity '{own[did]}'; a witness must be of another project",
                      code="attester_self_witness_forbidden")


def _handle_from(did: str) -> str:
    return did[len(didkey.PREFIX):][:12].lower()
