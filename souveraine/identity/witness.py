"""The witness: canonical bytes, ed25519 signatures, and the checks an attestation must pass.

What is signed is ``sha256("memory-attestation/v1" 0x00 memory_id 0x00 tier 0x00 content_sha256_hex)``:
one memory, one tier, one text. A signature moved onto another memory or tier no longer verifies.
"""

import base64
import binascii
import hashlib
import json
import re

from souveraine.errors import Refused, UsageError
from souveraine.identity import chronicle, covenants, identities, keys
from souveraine.identity.memories import ELEVATED
from souveraine.store import clock
from souveraine.store.memory import Memory

CONTEXT = "memory-attestation/v1"
FIELDS = ("attester_did", "signing_key_id", "signature", "memory_id", "tier", "content_sha256")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def canonical_bytes(memory_id: str, tier: str, content_sha256: str) -> bytes:
    """The 32 bytes an attester signs for ``memory_id`` at ``tier`` with text ``content_sha256``."""
    parts = (CONTEXT, memory_id, tier, content_sha256)
    return hashlib.sha256(b"\0".join(p.encode("utf-8") for p in parts)).digest()


def verify_signature(public_key: bytes, message: bytes, signature: bytes) -> bool:
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey

    try:
        VerifyKey(public_key).verify(message, signature)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


def check_target(memory_id: str, tier: str, content_sha256: str) -> None:
    if not _UUID.match(memory_id):
        raise UsageError(f"'{memory_id}' is not a memory id (a full uuid is signed, not a prefix)")
    if tier not in ELEVATED:
        raise UsageError(f"only foundational or constitutive memories are witnessed, not '{tier}'")
    if not _SHA.match(content_sha256):
        raise UsageError(f"'{content_sha256}' is not a sha256 in lowercase hex (64 digits)")


def make(keypair: keys.Keypair, memory_id: str, tier: str, content_sha256: str, source_grant_id: str = "") -> dict:
    check_target(memory_id, tier, content_sha256)
    signature = keypair.sign(canonical_bytes(memory_id, tier, content_sha256))
    attestation = {"context": CONTEXT, "attester_did": keypair.did, "signing_key_id": keypair.key_id,
                   "memory_id": memory_id, "tier": tier, "content_sha256": content_sha256,
                   "signature": base64.b64encode(signature).decode(),
                   "signed_at": clock.now().replace(microsecond=0).isoformat()}
    if source_grant_id:
        attestation["source_grant_id"] = source_grant_id
    return attestation


def sign(memory: Memory, *, memory_id: str, tier: str, content_sha256: str, handle: str | None = None,
         source_grant_id: str = "") -> dict:
    """``witness sign``, run by the counterparty in their own memory: an attestation, and a seal
    on the witness's own chronicle in the same breath (one commit)."""
    check_target(memory_id, tier, content_sha256)
    identity = identities.resolve(memory, handle).require_active()
    attestation = make(keys.load(identity.did), memory_id, tier, content_sha256, source_grant_id)
    with memory.change(f"feat(identity): seal memory {memory_id[:8]} as {tier}") as change:
        chronicle.append(memory, change, identity.handle, "seal", {
            "memory": memory_id, "tier": tier, "content_sha256": content_sha256,
            "signed by": identity.did, "source grant": source_grant_id})
    return attestation


def parse(data) -> dict:
    """One attestation as JSON gives it, its fields checked for shape (not yet for truth)."""
    if not isinstance(data, dict) or any(not isinstance(data.get(f), str) for f in FIELDS):
        raise UsageError(f"an attestation is a JSON object with {', '.join(FIELDS)}; 'souveraine witness sign' prints one",
                         code="bad_attestation")
    return data


def from_json(text: str, source: str = "the attestation") -> list[dict]:
    """Attestations from JSON text: one object, or a list of them."""
    try:
        data = json.loads(text)
    except ValueError:
        raise UsageError(f"{source} is not JSON; give the file 'souveraine witness sign' printed",
                         code="bad_attestation") from None
    return [parse(item) for item in (data if isinstance(data, list) else [data])]


def admit(memory: Memory, memory_id: str, content_sha256: str, tier: str, attestations: list[dict]) -> list[dict]:
    """The witness checks, in order; returns the attestations as stored (each naming its covenant).

    Each signature verifies against its covenant's key (invalid_signature, unknown_signing_key);
    constitutive needs an attester in an active covenant (witness_required, covenant_inactive);
    no attester may be this project's own (attester_self_witness_forbidden).
    """
    own = {i.did: i.handle for i in identities.all_identities(memory)}
    known = covenants.all_covenants(memory)
    admitted = [_verified(a, memory_id, content_sha256, tier, known, own) for a in attestations]
    if tier == "constitutive" and not admitted:
        raise Refused("a constitutive memory needs a witness of another project: have a counterparty run "
                      "'souveraine witness sign' and pass --attestation FILE", code="witness_required")
    for attestation, covenant in admitted:
        if covenant.status != "active":
            raise Refused(f"the covenant with {covenant.handle} ({covenant.did}) was revoked {covenant.revoked[:10]}; "
                          "its signatures witness nothing new", code="covenant_inactive")
    for attestation, covenant in admitted:
        if covenant.did in own or covenant.project_id == memory.project_id:
            raise Refused(f"{covenant.did} belongs to this memory's own project; a witness must be other",
                          code="attester_self_witness_forbidden")
    return [{**attestation, "covenant": covenant.handle} for attestation, covenant in admitted]


def _verified(attestation: dict, memory_id: str, content_sha256: str, tier: str, known, own) -> tuple:
    attester, key_id = attestation["attester_did"], attestation["signing_key_id"]
    covenant = next((c for c in known if c.did == attester and key_id in c.keys), None)
    if covenant is None:
        if attester in own:
            raise Refused(f"{attester} is this memory's own identity '{own[attester]}'; a witness must be of another project",
                          code="attester_self_witness_forbidden")
        raise Refused(f"no covenant holds the key {key_id} of {attester}; add its card with 'souveraine covenant add --card FILE'",
                      code="unknown_signing_key")
    if not verify_signature(covenant.keys[key_id], canonical_bytes(memory_id, tier, content_sha256),
                            _signature(attestation)):
        raise Refused(f"the signature of {attester} does not verify for memory {memory_id} at tier {tier}"
                      f"{_signed_for(attestation, memory_id, tier, content_sha256)}; ask for a new signature",
                      code="invalid_signature")
    return {k: v for k, v in attestation.items() if k != "covenant"}, covenant


def _signed_for(attestation: dict, memory_id: str, tier: str, content_sha256: str) -> str:
    claimed = (attestation["memory_id"], attestation["tier"], attestation["content_sha256"])
    if claimed == (memory_id, tier, content_sha256):
        return ""
    return f" (it was made for memory {claimed[0]} at tier {claimed[1]})"


def _signature(attestation: dict) -> bytes:
    try:
        return base64.b64decode(attestation["signature"], validate=True)
    except (binascii.Error, ValueError):
        return b""


def stored_problem(attestation, memory_id: str, content_sha256: str, read, project_id: str) -> str | None:
    """Why an attestation kept in a memory file does not hold at this snapshot, or None.

    ``read(relpath)`` gives another file at the same snapshot (its covenant).
    """
    try:
        attestation = parse(attestation)
    except UsageError:
        return "an attestation is not an object with attester_did, signing_key_id, signature, memory_id, tier, content_sha256"
    handle = str(attestation.get("covenant", ""))
    text = read(covenants.path_for(handle)) if identities.HANDLE.match(handle) else None
    if text is None:
        return f"the attestation by {attestation['attester_did']} names no covenant file here ('{handle}')"
    covenant = covenants.from_text(text, handle)
    key = covenant.keys.get(attestation["signing_key_id"]) if covenant.did == attestation["attester_did"] else None
    if key is None:
        return f"covenants/{handle}.md holds no key {attestation['signing_key_id']} of {attestation['attester_did']}"
    if covenant.project_id == project_id:
        return f"the attester {covenant.did} is of this memory's own project"
    tier = attestation["tier"]
    if tier not in ELEVATED or not verify_signature(key, canonical_bytes(memory_id, tier, content_sha256),
                                                    _signature(attestation)):
        return f"the signature of {attestation['attester_did']} does not verify for this memory at tier {tier}"
    return None

