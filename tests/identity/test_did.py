import base64
import os
import stat

import pytest

from souveraine.errors import Refused, UsageError
from souveraine.identity import did, keys, witness

SPEC_SEED = bytes(32)
SPEC_PUBLIC = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"
SPEC_DID = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"

RFC8032 = [  # RFC 8032 §7.1, TEST 1 and TEST 2: secret, public, message, signature
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
]


@pytest.mark.parametrize("secret, public, message, signature", RFC8032)
def test_rfc8032_vectors_through_our_signing_path(secret, public, message, signature):
    pair = keys.Keypair(bytes.fromhex(secret))
    assert pair.public.hex() == public
    assert pair.sign(bytes.fromhex(message)).hex() == signature
    assert witness.verify_signature(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature))
    assert not witness.verify_signature(bytes.fromhex(public), bytes.fromhex(message) + b"!", bytes.fromhex(signature))


def test_spec_vector_seed_of_zeros():
    pair = keys.Keypair(SPEC_SEED)
    assert pair.public.hex() == SPEC_PUBLIC
    assert pair.did == SPEC_DID
    assert did.decode(SPEC_DID).hex() == SPEC_PUBLIC
    assert pair.key_id == SPEC_DID + "#" + SPEC_DID.removeprefix("did:key:")


def test_rfc_test1_key_is_not_the_spec_did():
    assert keys.Keypair(bytes.fromhex(RFC8032[0][0])).did != SPEC_DID


def test_round_trips():
    for _ in range(20):
        public = os.urandom(32)
        encoded = did.encode(public)
        assert encoded.startswith("did:key:z6Mk")
        assert did.decode(encoded) == public
        assert did.public_key(did.multibase(public)) == public
        assert did.public_key(public.hex()) == public
    assert did.b58decode(did.b58encode(b"\0\0\x01")) == b"\0\0\x01"


@pytest.mark.parametrize("text, code", [
    ("did:web:example.org", "invalidDid"),
    ("did:key:6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", "invalidDid"),
    ("did:key:z0OIl", "invalidDid"),
    ("did:key:z" + did.b58encode(b"\x12\x00" + bytes(32)), "invalidPublicKeyType"),
    ("did:key:z" + did.b58encode(b"\xed\x01" + bytes(31)), "invalidPublicKeyLength"),
    ("did:key:z" + did.b58encode(b"\xed\x01" + bytes(33)), "invalidPublicKeyLength"),
])
def test_decoding_errors_name_the_spec_error(text, code):
    with pytest.raises(UsageError) as caught:
        did.decode(text)
    assert caught.value.code == code


def test_key_entries_round_trip():
    entry = did.key_entry(keys.Keypair(SPEC_SEED).key_id, bytes.fromhex(SPEC_PUBLIC))
    assert entry == f"{SPEC_DID}#{SPEC_DID[8:]}={SPEC_DID[8:]}"
    assert did.parse_key_entry(entry) == (f"{SPEC_DID}#{SPEC_DID[8:]}", bytes.fromhex(SPEC_PUBLIC))
    with pytest.raises(UsageError, match="is not ID=PUBKEY"):
        did.parse_key_entry("no-equals-sign")


def test_key_file_is_private_and_outside_the_memory(memory, isolated):
    pair = keys.Keypair.generate()
    path = keys.save(pair, memory.root)
    assert path.parent == isolated / ".config" / "souveraine" / "keys"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert keys.load(pair.did) == pair


def test_a_key_folder_inside_the_memory_is_refused(memory, monkeypatch):
    from souveraine.errors import ConfigError

    monkeypatch.setenv("XDG_CONFIG_HOME", str(memory.root / "cfg"))
    with pytest.raises(ConfigError, match="is inside the memory"):
        keys.save(keys.Keypair.generate(), memory.root)


def test_init_identity_keeps_only_the_public_key_in_the_memory(memory, isolated):
    from tests.support import git

    assert git(memory.root, "log", "--format=%s").splitlines() == ["feat(init): bootstrap memory"]
    text = (memory.root / "identities" / "ada.md").read_text()
    key_files = list((isolated / ".config" / "souveraine" / "keys").glob("*.key"))
    assert len(key_files) == 1
    pair = keys.load("did:key:" + key_files[0].name.removesuffix(".key"))
    assert f"did: {pair.did}" in text
    for path in memory.root.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            data = path.read_bytes()
            assert pair.seed not in data and base64.b64encode(pair.seed) not in data and pair.seed.hex().encode() not in data


def test_missing_private_key_is_a_clear_refusal(memory):
    from souveraine.identity import identities

    pair = keys.load(identities.load(memory, "ada").did)
    keys.remove(pair.did)
    with pytest.raises(Refused) as caught:
        keys.load(pair.did)
    assert caught.value.code == "missing_private_key"
