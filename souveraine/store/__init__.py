"""The memory itself: where it is, its layout, its notes, its git, its config.

Nothing here imports from the rest of Souveraine; everything else builds on it.
"""

__all__ = ["Memory"]


def __getattr__(name: str):
    # Lazy, so that hooks importing store.git or store.layout do not pay for Memory.
    if name == "Memory":
        from souveraine.store.memory import Memory

        return Memory
    raise AttributeError(f"module 'souveraine.store' has no attribute {name!r}")
