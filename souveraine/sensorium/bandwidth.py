"""Bandwidth classes and progressive discovery (constitution §III.2–III.3), as data.

| class   | discovery                                             | e.g.          |
|---------|-------------------------------------------------------|---------------|
| high    | everything: N+1 results, inbox contents, forks, chain  | TUI, API      |
|         | states, recent commits                                 |               |
| medium  | operational: the active unit and forks, what needs     | desktop, web  |
|         | attention                                              |               |
| low     | contextual: urgent surfacing only                      | mobile        |
| minimal | presence only                                          | watch, haptic |
"""

from souveraine.errors import UsageError

BANDWIDTHS = ("high", "medium", "low", "minimal")

# What each class discloses; a facet missing from a class is hidden in every command.
SHOWS = {
    "high": frozenset({"identity", "pinned", "synthesized", "inner_voice", "surfacing", "inbox", "recent", "on_demand",
                       "unit", "chain", "forks", "divergence", "n1", "commits", "attention", "journal", "tiers",
                       "pressure", "hooks", "where"}),
    "medium": frozenset({"identity", "pinned", "synthesized", "inner_voice", "surfacing", "recent", "on_demand",
                         "unit", "forks", "attention", "tiers", "pressure"}),
    "low": frozenset({"identity", "pinned", "synthesized", "inner_voice", "surfacing", "on_demand", "attention"}),
    "minimal": frozenset({"presence"}),
}
# The least urgent thought, attention item or inner-voice line each class lets through:
# low-urgency surfacing is suppressed on a phone (§III.3), everything is shown on a TUI.
FLOOR = {"high": "low", "medium": "medium", "low": "high", "minimal": "critical"}
URGENCIES = ("low", "medium", "high", "critical")
COMMITS = 5          # recent commits a high-bandwidth view lists
INBOX_LISTED = 10    # pending items a high-bandwidth view lists before "and N more"


def check(bandwidth: str) -> str:
    if bandwidth not in BANDWIDTHS:
        raise UsageError(f"bandwidth must be one of {', '.join(BANDWIDTHS)}, not '{bandwidth}'")
    return bandwidth


def shows(bandwidth: str, facet: str) -> bool:
    return facet in SHOWS[bandwidth]


def passes(bandwidth: str, urgency: str) -> bool:
    """Whether something of ``urgency`` reaches this class's viewport."""
    rank = URGENCIES.index(urgency) if urgency in URGENCIES else 0
    return rank >= URGENCIES.index(FLOOR[bandwidth])
