"""The budget: the model's context_limit × its wake_share (or --budget), in tokens counted
by the one counter, and optionally a cap in characters (--max-chars) for an agent that cuts
what a hook prints; over either, parts go in their cut order and the document says so.

Who you are and the constitutive memories are never cut: when they alone do not fit, the
wake is refused with what to do.
"""

from typing import Callable

from souveraine.errors import Refused
from souveraine.wake.document import Wake


def limit(model: dict, budget: int | None = None) -> int:
    return budget if budget is not None else int(model["context_limit"] * model["wake_share"])


def chars(text: str) -> int:
    """Characters as JavaScript counts them (UTF-16 code units): how Claude Code measures a hook's output."""
    return len(text.encode("utf-16-le")) // 2


def fit(wake: Wake, measure: Callable[[Wake], int], render: Callable[[Wake], str] | None = None) -> Wake:
    """Drop parts in cut order until the rendered wake fits; refuse when only the uncuttable remain."""
    def over() -> bool:
        wake.used = measure(wake)
        if wake.max_chars is not None:
            wake.chars = chars(render(wake))
        return wake.used > wake.limit or (wake.max_chars is not None and wake.chars > wake.max_chars)

    cuttable = sorted((p for p in wake.parts if p.cut is not None), key=lambda p: (p.cut, -p.seq))
    too_big = over()
    for part in cuttable:
        if not too_big:
            break
        wake.parts.remove(part)
        wake.left_out.append(part)
        too_big = over()
    if too_big and wake.used <= wake.limit:
        raise Refused(
            f"who you are and your constitutive memories alone need {wake.chars:,} characters, over this wake's cap "
            f"of {wake.max_chars:,} (--max-chars); raise the cap, or keep the identity to indexes (doctor: move "
            "detail to reference/, keep system/ small)", code="wake_over_budget")
    if too_big:
        raise Refused(
            f"who you are and your constitutive memories alone need {wake.used:,} tokens, over this wake's budget of "
            f"{wake.limit:,} (model {wake.model}); raise wake_share or context_limit in [models.{wake.model}] or pass "
            "--budget, and keep the identity to indexes (doctor: move detail to reference/, keep system/ small)",
            code="wake_over_budget")
    return wake

