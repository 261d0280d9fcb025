"""The budget: the model's context_limit × its wake_share (or --budget), in tokens counted
by the one counter; over it, parts go in their cut order and the document says so.

Who you are and the constitutive memories are never cut: when they alone do not fit, the
wake is refused with what to do.
"""

from typing import Callable

from souveraine.errors import Refused
from souveraine.wake.document import Wake


def limit(model: dict, budget: int | None = None) -> int:
    return budget if budget is not None else int(model["context_limit"] * model["wake_share"])


def fit(wake: Wake, measure: Callable[[Wake], int]) -> Wake:
    """Drop parts in cut order until the rendered wake fits; refuse when only the uncuttable remain."""
    wake.used = measure(wake)
    cuttable = sorted((p for p in wake.parts if p.cut is not None), key=lambda p: (p.cut, -p.seq))
    for part in cuttable:
        if wake.used <= wake.limit:
            break
        wake.parts.remove(part)
        wake.left_out.append(part)
        wake.used = measure(wake)
    if wake.used > wake.limit:
        raise Refused(
            f"who you are and your constitutive memories alone need {wake.used:,} tokens, over this wake's budget of "
            f"{wake.limit:,} (model {wake.model}); raise wake_share or context_limit in [models.{wake.model}] or pass "
            "--budget, and keep the identity to indexes (doctor: move detail to reference/, keep system/ small)",
            code="wake_over_budget")
    return wake

