"""Covenants: the witness graph — counterparties of other projects whose signatures we accept.

``covenants/HANDLE.md`` holds a counterparty's DID, public keys (``ID=z6Mk…``), project id
and status (active | revoked). A revoked covenant stays: past attestations still verify
against its keys, but it witnesses nothing new.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from souveraine.errors import Refused, UsageError
from souveraine.identity import did as didkey
from souveraine.identity import identities
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
    extra: dict = field(default_factory=dict)

    @property
    def path(self) -> str:
        return path_for(self.handle)

    def to_dict(self) -> dict:
        return {"handle": self.handle, "did": self.did, "project_id": self.project_id, "status": self.status,
                "keys": {k: didkey.multibase(v) for k, v in self.keys.items()},
                "created": self.created, "revoked": self.revoked, "path": self.path}


def path_for(handle: str) -> str:
    return f"{FOLDER}/{handle}.md"


def from_text(text: str, handle: str) -> Covenant:
    """A covenant from its file's text (also used by integrity, on any snapshot)."""
    note = notes.parse(text)
    return Covenant(
        handle=str(note.get("handle") or handle), did=str(note.get("did", "")),
        keys=dict(didkey.parse_key_entry(e) for e in note.get("keys") or []),
        project_id=str(note.get("project_id", "")), status=str(note.get("status") or "active"),
        created=str(note.get("created", "")), revoked=str(note.get("revoked") or ""),
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
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the card {source}: {exc.strerror}") from None
    return parse_card(text)


def parse_card(text: str) -> dict:
    try:
        card = json.loads(text)
        keys = {str(k["id"]): didkey.public_key(str(k["public_key"])) for k in card["keys"]}
        return {"handle": str(card.get("handle", "")), "did": str(card["did"]), "keys": keys,
                "project_id": str(card["project_id"])}
    except (ValueError, KeyError, TypeError):
        raise UsageError("the card is not one 'souveraine identity export' prints (JSON with did, keys, project_id)",
                         code="bad_card") from None


def add(memory: Memory, *, did: str, keys: dict[str, bytes], project_id: str, handle: str = "") -> dict:
    """Enter a covenant with a counterparty of another project (or renew a revoked one)."""
    didkey.decode(did)
    if not keys:
        raise UsageError("a covenant needs at least one public key; give --key ID=PUBKEY or a card")
    if not project_id.strip():
        raise UsageError("a covenant needs the counterparty's project id; give --project PROJECT_ID or a card")
    _refuse_self(memory, did, project_id)
    handle = identities.check_handle(handle or _handle_from(did))
    existing = {c.handle: c for c in all_covenants(memory)}
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
        "created": clock.now().replace(microsecond=0).isoformat(),
        "revoked": "",
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


def _refuse_self(memory: Memory, did: str, project_id: str) -> None:
    if project_id == memory.project_id:
        raise Refused(f"project {project_id} is this memory's own; a witness must be of another project",
                      code="attester_self_witness_forbidden")
    own = {i.did: i.handle for i in identities.all_identities(memory)}
    if did in own:
        raise Refused(f"{did} is this memory's own identity '{own[did]}'; a witness must be of another project",
                      code="attester_self_witness_forbidden")


def _handle_from(did: str) -> str:
    return did[len(didkey.PREFIX):][:12].lower()
