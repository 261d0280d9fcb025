"""A wake as data: its sections in order, each made of parts the budget may drop.

A part carries its Markdown, its data for JSON, and its place in the cut order.
"""

from dataclasses import dataclass, field

SECTIONS = ("presence", "you", "shaped_by", "system", "synthesized", "inner_voice", "surfacing", "at_work", "memory",
            "on_demand")


@dataclass
class Part:
    """One piece of a section: its Markdown, its data, and when the budget may drop it."""
    section: str
    key: str                  # a path, an id or a name: what the left-out notice lists
    data: dict
    md: str
    cut: int | None = None    # budget cut order (lowest goes first); None: never cut
    seq: int = 0              # within its cut order, the higher goes first


@dataclass
class Wake:
    identity: str
    model: str
    bandwidth: str
    shared: bool
    limit: int
    parts: list[Part] = field(default_factory=list)
    left_out: list[Part] = field(default_factory=list)
    used: int = 0
    max_chars: int | None = None    # a cap in characters (UTF-16 code units) besides the tokens
    chars: int | None = None        # the rendered length, measured when capped

    def section(self, name: str) -> list[Part]:
        return [p for p in self.parts if p.section == name]

    def to_dict(self) -> dict:
        from souveraine.wake import render

        return render.data(self)

    def markdown(self) -> str:
        from souveraine.wake import render

        return render.markdown(self)


# Cut order, first dropped first (docs/WAKE.md explains the choice).
CUT_RECENT, CUT_VOICE, CUT_SYNTHESIZED, CUT_SYSTEM, CUT_ON_DEMAND, CUT_SURFACING, CUT_STATE, CUT_FOUNDATIONAL = range(1, 9)
