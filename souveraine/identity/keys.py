"""Private keys: one file per key under $XDG_CONFIG_HOME/souveraine/keys/, mode 0600.

A private key never enters a memory; the memory holds only the DID and public keys.
A key file is JSON named for the key's multibase public key, so an identity's DID finds it.
"""

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path

from souveraine.errors import ConfigError, Refused
from souveraine.identity import did as didkey
from souveraine.store.atomic import atomic_write

FORMAT = "souveraine-key/v1"


@dataclass(frozen=True)
class Keypair:
    seed: bytes

    @classmethod
    def generate(cls) -> "Keypair":
        return cls(os.urandom(32))

    @property
    def _signing(self):
        from nacl.signing import SigningKey

        return SigningKey(self.seed)

    @property
    def public(self) -> bytes:
        return bytes(self._signing.verify_key)

    @property
    def did(self) -> str:
        return didkey.encode(self.public)

    @property
    def key_id(self) -> str:
        return didkey.key_id(self.did)

    def sign(self, message: bytes) -> bytes:
        return self._signing.sign(message).signature


def folder() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "souveraine" / "keys"


def path_for(did: str) -> Path:
    return folder() / f"{did[len(didkey.PREFIX):]}.key"


def save(keypair: Keypair, memory_root: Path | None = None) -> Path:
    """Write the key file (0600, in a 0700 folder); refuses a folder inside the memory."""
    target = path_for(keypair.did)
    if memory_root is not None and target.resolve().is_relative_to(Path(memory_root).resolve()):
        raise ConfigError(f"the key folder {folder()} is inside the memory; set XDG_CONFIG_HOME outside it so keys never enter git")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o700)
    data = {"type": FORMAT, "did": keypair.did, "key_id": keypair.key_id,
            "seed": base64.b64encode(keypair.seed).decode()}
    atomic_write(target, json.dumps(data, indent=2) + "\n", mode=0o600)
    return target


def load(did: str) -> Keypair:
    """The private key of ``did`` from this user's key folder."""
    target = path_for(did)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
        keypair = Keypair(base64.b64decode(data["seed"], validate=True))
    except FileNotFoundError:
        raise Refused(f"no private key for {did} in {folder()}; sign on the machine that created the identity, or copy its key file there",
                      code="missing_private_key") from None
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"{target} is not a Souveraine key file; restore it from your backup") from None
    if keypair.did != did:
        raise ConfigError(f"{target} holds the key of {keypair.did}, not {did}; restore the right key file")
    return keypair


def remove(did: str) -> None:
    path_for(did).unlink(missing_ok=True)
