"""The budget: the model's context_limit × its wake_share (or --budget), in tokens counted
by the one counter, and optionally a cap in characters (--max-chars) for an agent that cuts
what a hook prints; over either, parts go in their cut order and the document says so.

Who you are and the constitutive memories are never cut: when they alone do not fit, the
wake is refused with what to do. Before any part goes whole, a pinned file or synthesis that
alone is most of the wake and over a quarter of the budget is cut to that quarter at a
line, and the wake says where the rest is: one oversized note must not push out
everything else.
"""

from typing import Callable

from souveraine.errors import Refused
from souveraine.wake.document import Part, Wake

PART_SHARE = 0.25                      # no one pinned file may take more of the budget than this
PINNED = ("system", "synthesized")


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

    too_big = over()
    if too_big:
        _shorten_oversized(wake, render)
        too_big = over()
    cuttable = sorted((p for p in wake.parts if p.cut is not None), key=lambda p: (p.cut, -p.seq))
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


def _shorten_oversized(wake: Wake, render) -> None:
    """Cut a pinned part that is most of the wake and more than PART_SHARE of the budget to that
    share, at a line; smaller parts go whole, in the cut order."""
    text = render(wake) if render else "".join(p.md for p in wake.parts)
    per_token = len(text) / max(1, wake.used)
    room = int(PART_SHARE * wake.limit * per_token)
    if wake.max_chars is not None:
        room = min(room, int(PART_SHARE * wake.max_chars))
    for part in wake.parts:
        oversized = len(part.md) > room and len(part.md) > len(text) / 2     # it alone is most of the wake
        if part.section in PINNED and part.cut is not None and oversized:
            shown = _at_a_line(part.md, room)
            whole = len(part.md)
            part.md = (f"{shown}\n\n_Cut here: {len(shown):,} of {whole:,} characters shown; the rest is in "
                       f"`{part.key}`._\n")
            part.data = {**part.data, "cut": {"shown": len(shown), "of": whole}}
            wake.left_out.append(Part("cut", part.key, {"shown": len(shown), "of": whole}, ""))


def _at_a_line(md: str, room: int) -> str:
    """The start of ``md`` within ``room`` characters, ending at a line, with no code fence left open."""
    head = md[:room]
    head = head[:head.rfind("\n")] if "\n" in head else head
    if "```" in head or "~~~" in head:
        from souveraine.language import markdown      # only for a cut inside a note with code

        fence = markdown.open_fence(head)
        if fence:
            head += "\n" + fence
    return head.rstrip()

