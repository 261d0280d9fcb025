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


@pytest.fixture(autouse=True)
def searches_open_their_own_index():
    """A server built here keeps the index's connections open (recall.index.keep_open) for this
    test only: every other test runs as the command line does."""
    from souveraine.recall import index

    yield
    kept, index._kept = index._kept, None
    for conn in kept or []:
        conn.execute("SELECT 1")            # still usable when handed back
        index.sqlite3.Connection.close(conn)
