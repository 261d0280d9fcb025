"""The viewport: what a wake may show, by bandwidth and by whether it is shared.

At ``high`` bandwidth and unshared, everything. Below high, or in any ``--shared`` wake,
private memories and notes (``visibility: private``) stay out, and so do the
``[privacy] never_share`` rules: an entry that looks like a path (it has a ``/``, a glob
character or ends in ``.md``) drops every file it matches; any other entry is a phrase,
and drops every line that contains it (case ignored).
"""

from dataclasses import dataclass, field

from souveraine.errors import UsageError
from souveraine.store import layout

BANDWIDTHS = ("high", "medium", "low", "minimal")


@dataclass(frozen=True)
class Viewport:
    bandwidth: str = "high"
    shared: bool = False
    globs: tuple[str, ...] = field(default=())
    phrases: tuple[str, ...] = field(default=())

    @property
    def guarded(self) -> bool:
        """Private content and never-share rules apply."""
        return self.shared or self.bandwidth != "high"

    def allows(self, relpath: str, visibility: str = "public") -> bool:
        if not self.guarded:
            return True
        if str(visibility or "public").strip().lower() == "private":
            return False
        return not any(layout.glob_match(g, relpath) or relpath.startswith(g.rstrip("/") + "/") for g in self.globs)

    def clean(self, text: str) -> str:
        """``text`` without the lines that hold a never-share phrase."""
        if not self.guarded or not self.phrases or not text:
            return text
        return "\n".join(line for line in text.split("\n") if not self.hides(line))

    def hides(self, line: str) -> bool:
        if not self.guarded:
            return False
        folded = line.casefold()
        return any(phrase in folded for phrase in self.phrases)


def viewport(never_share: list[str], bandwidth: str = "high", shared: bool = False) -> Viewport:
    if bandwidth not in BANDWIDTHS:
        raise UsageError(f"bandwidth must be one of {', '.join(BANDWIDTHS)}, not '{bandwidth}'")
    rules = [str(rule).strip() for rule in never_share if str(rule).strip()]
    globs = tuple(r for r in rules if _is_path(r))
    phrases = tuple(r.casefold() for r in rules if not _is_path(r))
    return Viewport(bandwidth, shared, globs, phrases)


def _is_path(rule: str) -> bool:
    return "/" in rule or any(c in rule for c in "*?[") or rule.endswith(".md")
