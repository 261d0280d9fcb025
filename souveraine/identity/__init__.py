"""Memories and tiers, identities and keys, the witness, covenants, composition, chronicle."""
