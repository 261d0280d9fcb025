"""did:key for Ed25519: the W3C CCG method, multicodec 0xed01, base58btc.

``did:key:z`` + base58btc(0xed 0x01 + the 32-byte public key); every one starts ``did:key:z6Mk``.
A public key written alone uses the same multibase form (``z6Mk…``, as in Multikey).
"""

from souveraine.errors import UsageError

PREFIX = "did:key:"
HEADER = b"\xed\x01"
ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_INDEX = {char: i for i, char in enumerate(ALPHABET)}


def b58encode(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    out = []
    while number:
        number, rest = divmod(number, 58)
        out.append(ALPHABET[rest])
    zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * zeros + "".join(reversed(out))


def b58decode(text: str) -> bytes:
    number = 0
    for char in text:
        if char not in _INDEX:
            raise UsageError(f"'{char}' is not a base58btc character", code="invalidDid")
        number = number * 58 + _INDEX[char]
    zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * zeros + body


def multibase(public_key: bytes) -> str:
    """``z6Mk…``: a public key as multibase base58btc with its multicodec header."""
    if len(public_key) != 32:
        raise UsageError(f"an Ed25519 public key has 32 bytes, not {len(public_key)}", code="invalidPublicKeyLength")
    return "z" + b58encode(HEADER + public_key)


def from_multibase(text: str) -> bytes:
    if not text.startswith("z"):
        raise UsageError(f"'{text[:16]}' is not multibase base58btc (it must start with 'z')", code="invalidDid")
    raw = b58decode(text[1:])
    if not raw.startswith(HEADER):
        raise UsageError(f"'{text[:16]}…' is not an Ed25519 key (multicodec 0xed01 expected)", code="invalidPublicKeyType")
    if len(raw) != 34:
        raise UsageError(f"'{text[:16]}…' holds {len(raw) - 2} key bytes, not 32", code="invalidPublicKeyLength")
    return raw[2:]


def encode(public_key: bytes) -> str:
    return PREFIX + multibase(public_key)


def decode(did: str) -> bytes:
    """The 32-byte public key of an Ed25519 did:key; UsageError with the spec's error name otherwise."""
    if not did.startswith(PREFIX):
        raise UsageError(f"'{did[:24]}' is not a did:key; it must start with 'did:key:z6Mk'", code="invalidDid")
    return from_multibase(did[len(PREFIX):].split("#", 1)[0])


def key_id(did: str) -> str:
    """The DID's own verification method: ``did:key:z6Mk…#z6Mk…``."""
    return f"{did}#{did[len(PREFIX):]}"


def public_key(text: str) -> bytes:
    """A public key given as multibase (``z6Mk…``) or 64 hex digits."""
    text = text.strip()
    if len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text):
        return bytes.fromhex(text)
    return from_multibase(text)


def key_entry(key_id: str, public_key: bytes) -> str:
    """One public key as a flat property value: ``KEY_ID=z6Mk…`` (as ``--key ID=PUBKEY`` takes it)."""
    if "=" in key_id or not key_id.strip():
        raise UsageError(f"'{key_id}' is not a key id; it must be non-empty and hold no '='")
    return f"{key_id}={multibase(public_key)}"


def parse_key_entry(entry: str) -> tuple[str, bytes]:
    key_id, sep, value = str(entry).partition("=")
    if not sep or not key_id.strip():
        raise UsageError(f"'{entry}' is not ID=PUBKEY; give e.g. --key 'did:key:z6Mk…#z6Mk…=z6Mk…'")
    return key_id.strip(), public_key(value)


def bound(key_id: str, public_key: bytes) -> str | None:
    """Why ``key_id`` = ``public_key`` is not a did:key's own verification method, or None.

    A did:key encodes its key, so its only key id is ``did:key:z6Mk…#z6Mk…`` (the same
    multibase twice) and its only key is the one encoded; anything else is a relabelled key.
    """
    did, sep, fragment = key_id.partition("#")
    if not sep or fragment != did[len(PREFIX):]:
        return f"the key id {key_id} is not a did:key verification method (did:key:z6Mk…#z6Mk…, the same key twice)"
    try:
        encoded = decode(did)
    except UsageError as exc:
        return f"the key id {key_id} names no Ed25519 did:key ({exc})"
    if encoded != public_key:
        return f"the key given for {did} is not the key that DID encodes ({multibase(public_key)[:16]}… instead)"
    return None


def did_of(key_id: str) -> str:
    return key_id.partition("#")[0]
