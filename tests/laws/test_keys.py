import base64
import json

import pytest
from nacl.signing import SigningKey

from souveraine.identity.memories import remember
from souveraine.laws import keys, precommit
from tests.laws.steps import commit_all, write

SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")  # RFC 8032 TEST 1
SECRET = SEED + bytes(SigningKey(SEED).verify_key)
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58(raw: bytes) -> str:
    number, out = int.from_bytes(raw, "big"), ""
    while number:
        number, digit = divmod(number, 58)
        out = B58[digit] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


@pytest.mark.parametrize("text, what", [
    ("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n-----END PRIVATE KEY-----\n",
     "a PEM PRIVATE KEY block"),
    ("notes\n\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow…\n", "a PEM RSA PRIVATE KEY block"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n",
     "a PEM OPENSSH PRIVATE KEY block"),
    ("pasted: b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n", "an OpenSSH private key"),
    (json.dumps({"did": "did:key:z6Mk", "seed": SEED.hex()}), "an ed25519 key under 'seed'"),
    (json.dumps({"secret": base64.b64encode(SECRET).decode()}), "an ed25519 key under 'secret'"),
    (f"signing_key: {base64.urlsafe_b64encode(SEED).decode().rstrip('=')}\n", "an ed25519 key under 'signing_key'"),
    (f'private_key_hex = "{SEED.hex()}"\n', "an ed25519 key under 'private_key_hex'"),
    (json.dumps({"privateKeyMultibase": "z" + base58(b"\x80\x26" + SEED)}), "an ed25519 key under 'privateKeyMultibase'"),
])
def test_key_material_is_found(text, what):
    assert [f.what for f in keys.find(text.encode(), "notes/pasted.md")] == [what]


def test_a_key_file_holding_only_a_seed_is_found():
    assert [f.what for f in keys.find(SEED, "identities/ada.key")] == ["a raw ed25519 key in a key file"]
    assert [f.what for f in keys.find(SEED.hex().encode() + b"\n", "ada.seed")] == ["a bare ed25519 key in a key file"]


@pytest.mark.parametrize("text", [
    f"---\ncontent_sha256: {SEED.hex()}\nid: 0f3c9a1b-8f1e-4e53-9d0e-3a2b1c4d5e6f\n---\nbody\n",
    f"public_key: {SECRET[32:].hex()}\n",
    "did: did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp\n",
    f"seedling: {SEED.hex()}\n",
    json.dumps({"publicKeyMultibase": "z" + base58(b"\xed\x01" + SECRET[32:])}),
    f"The secret: {SEED.hex()[:20]} is too short to be a key.\n",
])
def test_hashes_and_public_keys_are_not_key_material(text):
    assert keys.find(text.encode(), "memories/m.md") == []


def test_a_remembered_memory_with_its_sha256_passes(memory):
    remember(memory, "The sky over the harbour was green at dawn.")
    assert precommit.problems(memory.root) == []


def test_staging_a_key_file_is_refused(memory):
    write(memory.root, "identities/ada-key.json", json.dumps({"did": "did:key:z6Mk", "seed": SEED.hex()}, indent=2))
    done = commit_all(memory.root, "feat(identity): ada's key")
    assert done.returncode == 1
    assert done.stderr == (
        "souveraine: identities/ada-key.json:3: an ed25519 key under 'seed' — private key material never enters a memory; "
        "remove it (git rm --cached identities/ada-key.json) and keep keys under ~/.config/souveraine/keys/\n")


def test_a_key_already_committed_is_reported_once(memory):
    write(memory.root, "notes/k.md", f"seed: {SEED.hex()}\n")
    assert commit_all(memory.root, "feat(memory): oops", "--no-verify").returncode == 0
    write(memory.root, "notes/k.md", "more\n", mode="a")
    assert commit_all(memory.root, "fix(memory): more").returncode == 0


def test_a_key_appended_to_a_journal_is_found_at_its_line(memory):
    from tests.laws.conftest import DAY, DAY_TEXT

    write(memory.root, DAY, f"\nMy signing key, for safekeeping:\nseed = {SEED.hex()}\n", mode="a")
    done = commit_all(memory.root, "chore(journal): a turn")
    assert done.returncode == 1
    line = DAY_TEXT.count("\n") + 3
    assert done.stderr.startswith(f"souveraine: {DAY}:{line}: an ed25519 key under 'seed' — ")


PEM = ("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
       "-----END PRIVATE KEY-----\n")


@pytest.mark.parametrize("path, data, what", [
    ("attachments/blob.bin", SEED, "32 raw bytes, the size of an ed25519 seed"),
    ("attachments/blob.bin", SECRET, "64 raw bytes, the size of an ed25519 secret key"),
    ("notes/hidden.md", b"notes\n\0\n" + PEM.encode(), "a PEM PRIVATE KEY block"),
    ("notes/utf16.md", PEM.encode("utf-16"), "a PEM PRIVATE KEY block"),
    ("notes/utf16.md", PEM.encode("utf-16-be"), "a PEM PRIVATE KEY block"),
    ("notes/seed.md", f"seed: 0x{SEED.hex()}\n".encode(), "an ed25519 key under 'seed'"),
    ("notes/prose.md", f"My private key: {SEED.hex()}\n".encode(), "an ed25519 key under 'private key'"),
    ("config/keys.toml", f'ed25519_sk = "{SEED.hex()}"\n'.encode(), "an ed25519 key under 'ed25519_sk'"),
])
def test_key_material_in_the_six_hidden_shapes_is_found(path, data, what):
    assert what in [f.what for f in keys.find(data, path)]


@pytest.mark.parametrize("path, data", [
    ("attachments/dot.png", bytes.fromhex("89504e470d0a1a0a") + bytes(24)),       # 32 bytes that are a PNG's start
    ("attachments/text.bin", b"0123456789abcdef0123456789abcdef"),               # 32 printable bytes
    ("notes/task.md", f"The task: {SEED.hex()[:40]} ask for it\n".encode()),
    ("notes/hash.md", f"sha: 0x{SEED.hex()}\n".encode()),
])
def test_near_misses_are_not_key_material(path, data):
    assert keys.find(data, path) == []


def test_a_hidden_key_is_refused_by_the_hook(memory):
    write(memory.root, "notes/utf16.md", PEM.encode("utf-16").decode("latin-1"))
    (memory.root / "notes/utf16.md").write_bytes(PEM.encode("utf-16"))
    (memory.root / "attachments").mkdir()
    (memory.root / "attachments/seed.bin").write_bytes(SEED)
    done = commit_all(memory.root, "feat(memory): attachments")
    assert done.returncode == 1
    assert "notes/utf16.md:1: a PEM PRIVATE KEY block" in done.stderr
    assert "attachments/seed.bin:1: 32 raw bytes, the size of an ed25519 seed" in done.stderr
