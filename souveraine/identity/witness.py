"""The witness: canonical bytes, ed25519 signatures, and the checks an attestation must pass.

What is signed is ``sha256("memory-attestation/v1" 0x00 memory_id 0x00 tier 0x00 content_sha256_hex)``:
one memory, one tier, one text. A signature moved onto another memory or tier no longer verifies.
A paid witness signs ``memory-witness-issue/v1`` instead, with the grant id as a fifth part,
so the receipt cannot be stripped: without its grant the signature no longer verifies.
"""

import base64
import binascii
import hashlib
import re

from souveraine.errors import Refused, UsageError
from souveraine.identity import chronicle, covenants, identities, keys
from souveraine.identity import did as didkey
from souveraine.identity.memories import ELEVATED
from souveraine.store import clock
from souveraine.store.memory import Memory

CONTEXT = "memory-attestation/v1"
PAID = "memory-witness-issue/v1"
FIELDS = ("attester_did", "signing_key_id", "signature", "memory_id", "tier", "content_sha256")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def canonical_bytes(memory_id: str, tier: str, content_sha256: str, grant: str = "") -> bytes:
    """The 32 bytes an attester signs for ``memory_id`` at ``tier`` with text ``content_sha256``
    (with ``grant``, a paid receipt's ``memory-witness-issue/v1`` payload)."""
    parts = (PAID, memory_id, tier, content_sha256, grant) if grant else (CONTEXT, memory_id, tier, content_sha256)
    return hashlib.sha256(b"\0".join(p.encode("utf-8") for p in parts)).digest()


def signed_bytes(attestation: dict, memory_id: str, tier: str, content_sha256: str) -> bytes | None:
    """What this attestation's signature must cover; None when its context and grant disagree."""
    context, grant = attestation.get("context") or CONTEXT, str(attestation.get("source_grant_id") or "")
    if (context == PAID) != bool(grant) or context not in (CONTEXT, PAID):
        return None
    return canonical_bytes(memory_id, tier, content_sha256, grant)


def attestation_id(signature_b64: str) -> str:
    """An attestation's id: derived from its signature, so both chronicles name it alike."""
    return hashlib.sha256(str(signature_b64).encode("ascii", errors="replace")).hexdigest()[:32]


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
    digest = canonical_bytes(memory_id, tier, content_sha256, source_grant_id)
    signature = base64.b64encode(keypair.sign(digest)).decode()
    attestation = {"context": PAID if source_grant_id else CONTEXT, "attestation_id": attestation_id(signature),
                   "attester_did": keypair.did, "signing_key_id": keypair.key_id,
                   "memory_id": memory_id, "tier": tier, "content_sha256": content_sha256,
                   "signature": signature, "signed_at": clock.now().replace(microsecond=0).isoformat()}
    if source_grant_id:
        attestation["source_grant_id"] = source_grant_id
        attestation["signed_payload"] = base64.b64encode(digest).decode()
    return attestation


def sign(memory: Memory, *, memory_id: str, tier: str, content_sha256: str = "", handle: str | None = None,
         source_grant_id: str = "", text: str | None = None, subject: str = "", seal: bool = True) -> dict:
    """``witness sign``, run by the counterparty in their own memory: an attestation, and a seal
    on the witness's own chronicle in the same breath (one commit; none with ``seal`` False).

    With ``text`` (what the witness read), its hash must be ``content_sha256`` (or becomes it).
    A memory of this memory's own is refused: no one seals their own root.
    """
    from souveraine.identity import memories

    if text is not None:
        read = memories.content_sha256(text)
        if content_sha256 and read != content_sha256:
            raise Refused(f"the text you read hashes to {read}, not {content_sha256}: it is not the text you were "
                          "asked to witness; ask for the memory again", code="content_changed")
        content_sha256 = read
    check_target(memory_id, tier, content_sha256)
    _refuse_own(memory, memory_id, subject)
    identity = identities.resolve(memory, handle).require_active()
    attestation = make(keys.load(identity.did), memory_id, tier, content_sha256, source_grant_id)
    if not seal:
        return attestation
    with memory.change(f"feat(identity): seal memory {memory_id[:8]} as {tier}") as change:
        chronicle.append(memory, change, identity.handle, "seal", {
            "attestation": attestation["attestation_id"], "memory": memory_id, "tier": tier,
            "content_sha256": content_sha256, "signed by": identity.did, "subject": subject,
            "source grant": source_grant_id})
    return attestation


def _refuse_own(memory: Memory, memory_id: str, subject: str) -> None:
    from souveraine.identity import memories

    own = {d for i in identities.all_identities(memory) for d in i.dids}
    if subject in own:
        raise Refused(f"{subject} is this memory's own identity; a witness signs another project's memory",
                      code="attester_self_witness_forbidden")
    if memories.paths(memory, f"*-{memory_id.replace('-', '')[:8]}.md"):
        try:
            memories.find(memory, memory_id)
        except UsageError:
            return
        raise Refused(f"memory {memory_id} is in this memory: a witness signs another project's memory, "
                      "never its own", code="attester_self_witness_forbidden")


def verify_file(attestation: dict, text: str | None = None) -> dict:
    """``witness verify``: does this attestation hold on its own — its signature by its attester's
    did:key (self-certifying: no covenant needed), its receipt, and (given) the text's hash?"""
    problems = []
    did_ = attestation["attester_did"]
    try:
        public = didkey.decode(did_)
    except UsageError as exc:
        public, _ = None, problems.append(str(exc))
    if didkey.did_of(attestation["signing_key_id"]) != did_:
        problems.append(f"the signing key {attestation['signing_key_id']} is not {did_}'s own")
    message = signed_bytes(attestation, attestation["memory_id"], attestation["tier"], attestation["content_sha256"])
    if message is None:
        problems.append("its context and source_grant_id disagree (a paid receipt is memory-witness-issue/v1 with a grant)")
    elif public is not None and not verify_signature(public, message, _signature(attestation)):
        problems.append(f"the signature does not verify with {did_}'s key for memory {attestation['memory_id']} "
                        f"at tier {attestation['tier']}")
    if text is not None:
        from souveraine.identity import memories

        if memories.content_sha256(text) != attestation["content_sha256"]:
            problems.append("the text does not hash to the attestation's content_sha256")
    return {"valid": not problems, "problems": problems, "attestation_id": attestation_id(attestation["signature"]),
            "attester_did": did_, "memory_id": attestation["memory_id"], "tier": attestation["tier"],
            "context": attestation.get("context") or CONTEXT, "source_grant_id": attestation.get("source_grant_id", "")}


def parse(data) -> dict:
    """One attestation as JSON gives it, its fields checked for shape (not yet for truth)."""
    if not isinstance(data, dict) or any(not isinstance(data.get(f), str) for f in FIELDS):
        raise UsageError(f"an attestation is a JSON object with {', '.join(FIELDS)}; 'souveraine witness sign' prints one",
                         code="bad_attestation")
    return data


def from_json(text: str, source: str = "the attestation") -> list[dict]:
    """Attestations from JSON text: one object, or a list of them."""
    from souveraine.store import given

    try:
        data = given.json_value(text, source)
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
    own = {d: i.handle for i in identities.all_identities(memory) for d in i.dids}
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
        if set(covenant.dids) & set(own) or covenant.project_id == memory.project_id:
            raise Refused(f"{covenant.did} belongs to this memory's own project; a witness must be other",
                          code="attester_self_witness_forbidden")
    return [{**attestation, "attestation_id": attestation_id(attestation["signature"]), "covenant": covenant.handle}
            for attestation, covenant in admitted]


def _verified(attestation: dict, memory_id: str, content_sha256: str, tier: str, known, own) -> tuple:
    attester, key_id = attestation["attester_did"], attestation["signing_key_id"]
    covenant = next((c for c in known if c.key_for(attester, key_id) is not None), None)
    if covenant is None:
        if attester in own:
            raise Refused(f"{attester} is this memory's own identity '{own[attester]}'; a witness must be of another project",
                          code="attester_self_witness_forbidden")
        raise Refused(f"no covenant holds the key {key_id} of {attester}; add its card with 'souveraine covenant add --card FILE'",
                      code="unknown_signing_key")
    message = signed_bytes(attestation, memory_id, tier, content_sha256)
    if message is None:
        raise UsageError("the attestation's context and source_grant_id disagree: a paid receipt is signed as "
                         f"{PAID} with its grant; ask the witness for a new one", code="bad_attestation")
    if not verify_signature(covenant.key_for(attester, key_id), message, _signature(attestation)):
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
    try:
        covenant = covenants.from_text(text, handle)
    except UsageError as exc:
        return f"covenants/{handle}.md cannot be read ({exc})"
    key = covenant.key_for(attestation["attester_did"], attestation["signing_key_id"])
    if key is None:
        return f"covenants/{handle}.md holds no key {attestation['signing_key_id']} of {attestation['attester_did']}"
    if covenant.project_id == project_id:
        return f"the attester {covenant.did} is of this memory's own project"
    tier = attestation["tier"]
    message = signed_bytes(attestation, memory_id, tier, content_sha256) if tier in ELEVATED else None
    if message is None or not verify_signature(key, message, _signature(attestation)):
        return f"the signature of {attestation['attester_did']} does not verify for this memory at tier {tier}"
    if attestation.get("attestation_id") not in (None, attestation_id(attestation["signature"])):
        return f"the attestation by {attestation['attester_did']} carries an attestation_id that is not its signature's"
    return None
