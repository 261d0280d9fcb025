"""Key rotation: a new did:key announced by a statement its old key signs.

A did:key *is* its key, so a new key is a new DID. ``identity rotate`` makes one and signs

    sha256("identity-rotation/v1" 0x00 old_did 0x00 new_did 0x00 at)

with the old key. The statement is kept as one line in the identity's ``rotations`` (and
on its card); a covenant that accepts it keeps the line too, adds the new key, and so
takes the new DID's signatures, while everything the old key signed stays valid.
"""

import base64
import binascii
import hashlib

from souveraine.errors import UsageError
from souveraine.identity import did as didkey

CONTEXT = "identity-rotation/v1"
_SEP = " · "


def canonical_bytes(old: str, new: str, at: str) -> bytes:
    return hashlib.sha256(b"\0".join(p.encode("utf-8") for p in (CONTEXT, old, new, at))).digest()


def statement(old_keypair, new_did: str, at: str) -> str:
    """``did:key:OLD > did:key:NEW · AT · SIGNATURE``: one line a person can read in a diff."""
    signature = old_keypair.sign(canonical_bytes(old_keypair.did, new_did, at))
    return _SEP.join((f"{old_keypair.did} > {new_did}", at, base64.b64encode(signature).decode()))


def parse(line: str) -> tuple[str, str, str, bytes]:
    """(old DID, new DID, when, signature); UsageError when the line is not a statement."""
    try:
        dids, at, signature = str(line).split(_SEP)
        old, new = (d.strip() for d in dids.split(" > "))
        return old, new, at.strip(), base64.b64decode(signature.strip(), validate=True)
    except (ValueError, binascii.Error):
        raise UsageError(f"'{str(line)[:40]}…' is not a rotation statement ('OLD > NEW · WHEN · SIGNATURE')",
                         code="bad_rotation") from None


def chain(start: str, lines) -> tuple[list[str], str | None]:
    """The DIDs ``start`` rotated to, in order, and why the chain breaks (None when whole).

    Each statement must begin where the last ended and verify with the key of the DID it leaves.
    """
    from souveraine.identity.witness import verify_signature

    dids, current = [start], start
    for line in lines or []:
        try:
            old, new, at, signature = parse(line)
            if old != current:
                return dids, f"the rotation to {new} starts from {old}, not from {current}"
            didkey.decode(new)
            if not verify_signature(didkey.decode(old), canonical_bytes(old, new, at), signature):
                return dids, f"the rotation from {old} to {new} is not signed by {old}'s key"
        except UsageError as exc:
            return dids, str(exc)
        dids.append(new)
        current = new
    return dids, None
