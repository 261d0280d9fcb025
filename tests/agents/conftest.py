"""Witnesses for the agents' tests: other projects' keys held here, in covenant with the memory."""

import uuid

import pytest


@pytest.fixture
def witnesses(memory):
    """Two witnesses of other projects (their keys held here, in the test), in covenant with ``memory``."""
    from souveraine.identity import covenants, keys

    pair = [keys.Keypair(bytes(range(32))), keys.Keypair(bytes(range(1, 33)))]
    for handle, witness in zip(("wit", "wit2"), pair):
        covenants.add(memory, did=witness.did, keys={witness.key_id: witness.public},
                      project_id=str(uuid.uuid4()), handle=handle)
    return pair
