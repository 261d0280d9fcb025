"""wake: the context document read at every session start, within the model's budget.

``wake(memory, ...)`` returns a Wake; its ``markdown()`` is the document and its
``to_dict()`` the same content as data. See docs/WAKE.md.
"""

from souveraine.errors import UsageError
from souveraine.store import tokens
from souveraine.store.memory import Memory
from souveraine.wake import budget, compose, render
from souveraine.wake.document import Wake
from souveraine.wake.privacy import viewport


def wake(memory: Memory, identity: str | None = None, model: str | None = None, bandwidth: str = "high",
         budget_tokens: int | None = None, shared: bool = False, max_chars: int | None = None) -> Wake:
    """The wake for this identity, model and viewport, cut to fit its budget (and ``max_chars``, if given)."""
    if budget_tokens is not None and budget_tokens < 1:
        raise UsageError(f"--budget must be a positive number of tokens, not {budget_tokens}")
    if max_chars is not None and max_chars < 1:
        raise UsageError(f"--max-chars must be a positive number of characters, not {max_chars}")
    physics = memory.config.model(model)
    view = viewport(memory.config["privacy"]["never_share"], bandwidth, shared)
    handle, parts = compose.parts(memory, identity, view)
    document = Wake(handle, physics["name"], bandwidth, shared, budget.limit(physics, budget_tokens), parts,
                    max_chars=max_chars)
    return budget.fit(document, lambda w: tokens.for_model(render.markdown(w), physics), render.markdown)

