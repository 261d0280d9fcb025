"""The memory itself: where it is, its layout, its notes, its git, its config.

Nothing here imports from the rest of Souveraine; everything else builds on it.
"""

from souveraine.store.memory import Memory

__all__ = ["Memory"]
