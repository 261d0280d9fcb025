"""Context pressure: what wake pins plus the journal not yet synthesized, against the model's limit."""

from dataclasses import dataclass
from datetime import date

from souveraine.store import journal, notes, tokens
from souveraine.store.memory import Memory


@dataclass(frozen=True)
class Pressure:
    model: str
    pinned_tokens: int
    unsynthesized_tokens: int
    context_limit: int
    threshold: float

    @property
    def tokens(self) -> int:
        return self.pinned_tokens + self.unsynthesized_tokens

    @property
    def ratio(self) -> float:
        return self.tokens / self.context_limit if self.context_limit else 0.0

    @property
    def due(self) -> bool:
        return self.ratio >= self.threshold

    def to_dict(self) -> dict:
        return {"model": self.model, "tokens": self.tokens, "pinned_tokens": self.pinned_tokens,
                "unsynthesized_tokens": self.unsynthesized_tokens, "context_limit": self.context_limit,
                "ratio": round(self.ratio, 4), "threshold": self.threshold, "due": self.due}


def measure(memory: Memory, model_name: str | None = None) -> Pressure:
    model = memory.config.model(model_name)
    pinned = sum(_size(p) for p in (memory.root / "system").rglob("*.md"))
    since = last_synthesis(memory)
    unsynth = sum(_size(memory.root / rel) for rel in journal.days(memory.root)
                  if since is None or journal.day_of(rel) > since)
    threshold = memory.config["archivist"]["threshold"] or model["archivist_threshold"]
    return Pressure(model["name"], tokens.from_size(pinned, model), tokens.from_size(unsynth, model),
                    model["context_limit"], threshold)


def last_synthesis(memory: Memory) -> date | None:
    """The last journal day the archivist's syntheses cover (their ``through`` property)."""
    newest = None
    folder = memory.root / "system" / "synthesized"
    for path in folder.glob("*.md") if folder.is_dir() else ():
        through = notes.read(path).get("through")
        if through is not None:
            day = through if isinstance(through, date) else date.fromisoformat(str(through))
            newest = day if newest is None or day > newest else newest
    return newest


def _size(path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
