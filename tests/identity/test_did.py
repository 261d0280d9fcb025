import base64
import os
import stat

import pytest

from souveraine.errors import Refused, UsageError
from souveraine.identity import did, keys, witness

SPEC_SEED = bytes(32)
SPEC_PUBLIC = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"
SPEC_DID = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"

TEST_1024_MESSAGE = (  # RFC 8032 §7.1 TEST 1024: 1023 bytes
    "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1"
    "e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d"
    "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a"
    "7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e"
    "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
    "3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1"
    "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d"
    "502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270"
    "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089b"
    "eccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
    "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969b"
    "e3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7"
    "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988d"
    "cda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df"
    "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
    "984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4"
    "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac09"
    "43bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f"
    "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f161"
    "0e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
    "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8ca"
    "c60c905c15fc910840b94c00a0b9d0"
)
RFC8032 = [  # RFC 8032 §7.1, TEST 1, 2, 3 and 1024: secret, public, message, signature
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ("f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
     "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e", TEST_1024_MESSAGE,
     "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"),
]
DID_KEY_VECTORS = [  # the W3C CCG did:key test vectors (test-vectors/ed25519-x25519.json): seed, DID, publicKeyBase58
    ("00" * 32, "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", "4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS"),
    ("00" * 31 + "01", "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG", "6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt"),
    ("00" * 31 + "02", "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf", "8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH"),
]


@pytest.mark.parametrize("seed, expected_did, public_base58", DID_KEY_VECTORS)
def test_did_key_vectors_through_our_key_api(seed, expected_did, public_base58):
    pair = keys.Keypair(bytes.fromhex(seed))
    assert pair.did == expected_did
    assert did.b58encode(pair.public) == public_base58
    assert did.decode(expected_did) == pair.public
    assert pair.key_id == f"{expected_did}#{expected_did[8:]}"
    assert did.bound(pair.key_id, pair.public) is None
    assert did.bound(pair.key_id, keys.Keypair(bytes(32)).public if seed != "00" * 32 else pair.public[::-1])


def test_the_1024_vector_is_the_published_length():
    assert len(bytes.fromhex(TEST_1024_MESSAGE)) == 1023


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
