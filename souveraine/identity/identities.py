"""Identities: who may be shaped here — a handle, a uuid, a did:key, and a declared expression.

``identities/HANDLE.md`` holds everything public as flat properties; the private key lives
in the user's key folder (see keys.py). ``shaped_by`` lists the memories that shaped the
identity, in elevation order, so composing it never scans memories/.
"""

import re
import uuid
from dataclasses import dataclass, field

from souveraine.errors import Refused, UsageError
from souveraine.identity import did as didkey
from souveraine.identity import keys, rotation
from souveraine.store import clock, notes
from souveraine.store.memory import Memory

FOLDER = "identities"
HANDLE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CARD_FORMAT = "souveraine-card/v1"


@dataclass
class Identity:
    handle: str
    id: str
    did: str
    keys: dict[str, bytes]
    status: str = "active"
    created: str = ""
    register: str = ""
    walls: list[str] = field(default_factory=list)
    subagents: list[str] = field(default_factory=list)
    wake_text: str = ""
    shaped_by: list[str] = field(default_factory=list)   # memory paths, in elevation order
    rotations: list[str] = field(default_factory=list)   # signed statements, oldest first

    @property
    def dids(self) -> list[str]:
        """Every DID this identity has had: its first, then each it rotated to."""
        first = rotation.parse(self.rotations[0])[0] if self.rotations else self.did
        return list(dict.fromkeys([*rotation.chain(first, self.rotations)[0], self.did]))

    def problems(self) -> list[str]:
        """Why this identity's DID, keys or rotations do not hold together."""
        out = []
        first = self.did
        if self.rotations:
            try:
                first = rotation.parse(self.rotations[0])[0]
            except UsageError as exc:
                return [str(exc)]
        dids, broken = rotation.chain(first, self.rotations)
        if broken:
            out.append(broken)
        elif dids[-1] != self.did:
            out.append(f"its did {self.did} is not where its rotations lead ({dids[-1]})")
        for key_id, key in self.keys.items():
            why = didkey.bound(key_id, key)
            if why is None and didkey.did_of(key_id) not in dids:
                why = f"the key {key_id} is of a DID this identity never rotated to"
            if why:
                out.append(why)
        if not any(didkey.did_of(k) == self.did for k in self.keys):
            out.append(f"it holds no key of its own did {self.did}")
        return out

    @property
    def path(self) -> str:
        return path_for(self.handle)

    @property
    def declared(self) -> dict:
        return {"register": self.register, "walls": list(self.walls),
                "subagents": list(self.subagents), "wake_text": self.wake_text}

    def require_active(self) -> "Identity":
        if self.status != "active":
            raise Refused(f"identity {self.handle} is {self.status}; use an active identity", code="identity_inactive")
        return self

    def to_dict(self) -> dict:
        return {"handle": self.handle, "id": self.id, "did": self.did, "status": self.status,
                "created": self.created, "keys": {k: didkey.multibase(v) for k, v in self.keys.items()},
                "declared": self.declared, "shaped_by": list(self.shaped_by), "path": self.path}


def path_for(handle: str) -> str:
    return f"{FOLDER}/{handle}.md"


def check_handle(handle: str) -> str:
    if not HANDLE.match(handle or ""):
        raise UsageError(f"'{handle}' is not a valid identity handle; use lowercase letters, digits, '-' or '_'")
    return handle


def from_note(note: notes.Note, handle: str) -> Identity:
    entries = [didkey.parse_key_entry(e) for e in note.get("keys") or []]
    return Identity(
        handle=str(note.get("handle") or handle), id=str(note.get("id", "")), did=str(note.get("did", "")),
        keys=dict(entries), status=str(note.get("status") or "active"), created=str(note.get("created", "")),
        register=str(note.get("register") or ""), walls=[str(w) for w in note.get("walls") or []],
        subagents=[str(s) for s in note.get("subagents") or []], wake_text=str(note.get("wake_text") or ""),
        shaped_by=[memories_path(w) for w in note.get("shaped_by") or []],
        rotations=[str(r) for r in note.get("rotations") or []],
    )


def memories_path(wikilink: str) -> str:
    from souveraine.identity.memories import unlink_path

    return unlink_path(wikilink)


def load(memory: Memory, handle: str) -> Identity:
    check_handle(handle)
    relpath = path_for(handle)
    if not memory.exists(relpath):
        known = ", ".join(i.handle for i in all_identities(memory)) or "none yet"
        raise UsageError(f"no identity '{handle}' here (known: {known}); 'souveraine identity create {handle}' makes one",
                         code="unknown_identity")
    return from_note(notes.read(memory.path(relpath)), handle)


def all_identities(memory: Memory) -> list[Identity]:
    folder = memory.root / FOLDER
    found = sorted(folder.glob("*.md")) if folder.is_dir() else []
    return [from_note(notes.read(p), p.stem) for p in found]


def by_id(memory: Memory, identity_id: str) -> Identity | None:
    return next((i for i in all_identities(memory) if identity_id and i.id == identity_id), None)


def resolve(memory: Memory, handle: str | None = None) -> Identity:
    """The named identity, else the memory's default, else its only one."""
    if handle:
        return load(memory, handle)
    default = memory.config["project"]["identity"]
    if default and memory.exists(path_for(default)):
        return load(memory, default)
    found = all_identities(memory)
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError("this memory has no identity; 'souveraine identity create HANDLE' makes one", code="unknown_identity")
    raise UsageError(f"this memory has {len(found)} identities; say which with --identity HANDLE", code="unknown_identity")


def new_note(handle: str, keypair: keys.Keypair, *, register: str = "", walls=(), subagents=(),
             wake_text: str = "") -> notes.Note:
    walls = _unique(walls)
    body = (f"# {handle}\n\nThe identity **{handle}**: its DID `{keypair.did}` and public key are in the "
            "properties above, with its declared expression (register, walls, subagents, wake text). "
            "Its private key never enters this memory.\n\nHow memories have shaped it since: [[effective]].\n")
    return notes.new({
        "type": "identity",
        "handle": handle,
        "id": str(uuid.uuid4()),
        "did": keypair.did,
        "keys": [didkey.key_entry(keypair.key_id, keypair.public)],
        "status": "active",
        "created": clock.now().replace(microsecond=0).isoformat(),
        "register": register,
        "walls": walls,
        "subagents": _unique(subagents),
        "wake_text": wake_text,
        "shaped_by": [],
        "description": f"The identity {handle}: its DID, public keys and declared expression.",
        "tags": ["identity"],
    }, body)


def write_new(memory: Memory, handle: str, write, **declared) -> dict:
    """Make the key pair and write ``identities/HANDLE.md`` and the effective expression through ``write``.

    ``write(relpath, text)`` is a change's writer (or init's). The key file is saved last,
    so a failure before it leaves no key behind.
    """
    from souveraine.identity import compose

    check_handle(handle)
    if memory.exists(path_for(handle)):
        raise Refused(f"identity '{handle}' already exists; 'souveraine identity show {handle}' shows it", code="identity_exists")
    keypair = keys.Keypair.generate()
    note = new_note(handle, keypair, **declared)
    write(path_for(handle), notes.dumps(note))
    write(compose.EFFECTIVE, compose.render(memory))
    keys.save(keypair, memory.root)
    return {"handle": handle, "id": note["id"], "did": keypair.did, "key_id": keypair.key_id,
            "path": path_for(handle), "key_file": str(keys.path_for(keypair.did))}


def create(memory: Memory, handle: str, **declared) -> dict:
    """``identity create``: a key pair, identities/HANDLE.md and the effective expression, one commit."""
    saved = None
    try:
        with memory.change(f"feat(identity): create identity {handle}") as change:
            saved = write_new(memory, handle, change.write, **declared)
    except BaseException:
        if saved:
            keys.remove(saved["did"])
        raise
    return {**saved, "commit": change.sha}


def card(memory: Memory, handle: str | None = None) -> dict:
    """What a counterparty needs to witness this identity: DID, public keys, project id."""
    found = resolve(memory, handle)
    card = {"type": CARD_FORMAT, "handle": found.handle, "did": found.did,
            "keys": [{"id": k, "public_key": didkey.multibase(v)} for k, v in found.keys.items()],
            "project_id": memory.project_id}
    if found.rotations:
        card["rotations"] = list(found.rotations)
    return card


def rotate(memory: Memory, handle: str | None = None) -> dict:
    """``identity rotate``: a new key pair and DID, announced by a statement the old key signs.

    The old key stays listed (what it signed stays valid); counterparties accept the new
    key with the new card ('covenant add --card'). One commit; the new key file is saved
    only once the commit is made, the old one is kept.
    """
    from souveraine.identity import compose

    found = resolve(memory, handle).require_active()
    old = keys.load(found.did)
    new = keys.Keypair.generate()
    at = clock.now().replace(microsecond=0).isoformat()
    line = rotation.statement(old, new.did, at)
    relpath = path_for(found.handle)
    note = notes.read(memory.path(relpath))
    note["did"] = new.did
    note["keys"] = [*(note.get("keys") or []), didkey.key_entry(new.key_id, new.public)]
    if "rotations" in note.meta:
        note["rotations"] = [*note["rotations"], line]
    else:
        note.meta.insert(list(note.meta).index("status"), "rotations", [line])
    keys.save(new, memory.root)
    try:
        with memory.change(f"feat(identity): rotate the key of {found.handle}") as change:
            change.write_note(relpath, note)
            change.write(compose.EFFECTIVE, compose.render(memory))
    except BaseException:
        keys.remove(new.did)
        raise
    return {"handle": found.handle, "old_did": old.did, "did": new.did, "key_id": new.key_id,
            "statement": line, "key_file": str(keys.path_for(new.did)), "commit": change.sha}


def set_shaped_by(memory: Memory, handle: str, paths: list[str], write) -> None:
    from souveraine.identity.memories import link

    relpath = path_for(handle)
    note = notes.read(memory.path(relpath))
    note["shaped_by"] = [link(p) for p in paths]
    write(relpath, notes.dumps(note))


def _unique(items) -> list[str]:
    seen, out = set(), []
    for item in items or ():
        text = " ".join(str(item).split())
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out
