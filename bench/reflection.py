"""The Anchor and the Flame on labelled windows of conversation: precision and recall per half.

Usage: python bench/reflection.py [--half dev|held-out|both] [--show-errors]

bench/data/reflection.txt: windows of turns (as a witness sees them: six to fourteen turns,
texting, formal letters, technical talk, grief, family), each labelled with what held
through it (a person, a goal, a project; nothing, for a scattered window) and every name
and term it said that the memory did not hold before. Windows alternate between the
development half (first, third…) and the held-out half; bench/data/reflection-development.txt,
a second batch written later to tune on, is all development. Each window is witnessed
as ``reflect.anchor`` and ``reflect.flame`` see it, with only the window's ``held`` words as
the memory's vocabulary (a new memory: the hardest case for the Flame, which has no
everyday words to set capitals against).

Matching: a found item is right when it is one of an item's spellings, or a shorter form of
one ("Okafor" for "Amara Okafor"), titles aside. Items marked "?" are acceptable but not
required: found, they count neither way. Anchor precision is over the items the Anchor
names (at most two a window), recall over the required items; so for the Flame.
"""

import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common  # noqa: E402
from bench.common import HALVES  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "reflection.txt"
DEVELOPMENT = DATA.with_name("reflection-development.txt")
TITLES = frozenset({"dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "professor", "prof", "prof."})


@dataclass
class Item:
    spellings: list[str]
    required: bool


@dataclass
class Window:
    title: str
    anchor: list[Item] = field(default_factory=list)
    flame: list[Item] = field(default_factory=list)
    held: set[str] = field(default_factory=set)
    turns: list[tuple[str, str]] = field(default_factory=list)


def _items(text: str) -> list[Item]:
    items = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        required = not part.startswith("?")
        items.append(Item([s.strip() for s in part.lstrip("?").split("/") if s.strip()], required))
    return items


def read(path: Path) -> list[Window]:
    windows: list[Window] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            windows.append(Window(line[3:]))
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "anchor":
            windows[-1].anchor = _items(value)
        elif key == "flame":
            windows[-1].flame = _items(value)
        elif key == "held":
            windows[-1].held = {w.casefold() for w in value.split()}
        elif key in ("user", "assistant"):
            windows[-1].turns.append((key, value))
        else:
            raise ValueError(f"{path.name}: a line that is no label and no turn: {raw!r}")
    return windows


def labelled(half: str) -> list[Window]:
    windows = [w for i, w in enumerate(read(DATA)) if i % 2 == HALVES.index(half)]
    return windows + ([w for path in _later() for w in read(path)] if half == "dev" else [])


def _later() -> list[Path]:
    """The later development batches, oldest first."""
    return sorted(DATA.parent.glob(DEVELOPMENT.stem + "*.txt"))


def batch(path: Path) -> dict:
    """The Anchor's and the Flame's figures on one batch file alone."""
    return _measured(read(path), path.stem)


def turns_of(window: Window):
    from souveraine.store.journal import Turn

    start = datetime(2026, 11, 30, 14, 0)
    return [Turn(f"t{i:04d}", start + timedelta(minutes=i), role, "s1", text, "journal/2026/11/2026-11-30.md")
            for i, (role, text) in enumerate(window.turns)]


def _words(text: str) -> list[str]:
    from souveraine.inference import extractive

    return [w for w in (t.casefold() for t in extractive.TOKEN.findall(text)) if w not in TITLES]


def _matches(found: str, item: Item) -> bool:
    got = _words(found)
    for spelling in item.spellings:
        want = _words(spelling)
        if got == want or (got and set(got) < set(want)):
            return True
    return False


def _score(found: list[str], gold: list[Item]) -> tuple[int, int, int, list[str], list[str]]:
    """Right, counted found, required; the wrong found items and the missed required ones."""
    right = counted = 0
    wrong, seen = [], []
    for name in found:
        hit = next((item for item in gold if _matches(name, item)), None)
        if hit is None:
            counted += 1
            wrong.append(name)
        elif hit.required and not any(item is hit for item in seen):   # a second form of one item counts neither way
            counted += 1
            right += 1
        seen.append(hit)
    missed = [item.spellings[0] for item in gold if item.required and not any(_matches(n, item) for n in found)]
    required = sum(1 for item in gold if item.required)
    return right, counted, required, wrong, missed


def anchored(window: Window) -> list[str]:
    from souveraine.tempos import reflect

    lines = reflect.anchor(turns_of(window), window.held)
    return [line[1:line.index("*", 1)] for line in lines if line.startswith("*")]


def flamed(window: Window) -> list[str]:
    from souveraine.tempos import reflect

    return [name for name, _ in reflect.flame(turns_of(window), window.held)]


def measure(half: str) -> dict:
    return _measured(labelled(half), half)


def _measured(windows: list[Window], half: str) -> dict:
    result = {"half": half, "windows": 0, "turns": 0, "errors": []}
    for part, find in (("anchor", anchored), ("flame", flamed)):
        right = counted = required = 0
        for window in windows:
            r, c, q, wrong, missed = _score(find(window), getattr(window, part))
            right, counted, required = right + r, counted + c, required + q
            if wrong or missed:
                result["errors"].append((part, window.title, wrong, missed))
        result[part] = {"right": right, "found": counted, "gold": required,
                        "precision": right / counted if counted else 1.0, "recall": right / required if required else 1.0}
    result["windows"] = len(windows)
    result["turns"] = sum(len(w.turns) for w in windows)
    return result


def report(half: str, r: dict, show_errors: bool) -> None:
    print(f"{half:9} {r['windows']} windows, {r['turns']} turns")
    for part in ("anchor", "flame"):
        p = r[part]
        print(f"  {part:6} precision {p['precision']:.3f} ({p['right']}/{p['found']}), "
              f"recall {p['recall']:.3f} ({p['right']}/{p['gold']})")
    if show_errors:
        for part, title, wrong, missed in r["errors"]:
            print(f"  {part:6} {title}: wrong {wrong} missed {missed}")


def main() -> None:
    if sys.argv[1:2] == ["--batch"]:          # one later development batch alone: --batch FILE
        report(Path(sys.argv[2]).stem, batch(Path(sys.argv[2])), "--show-errors" in sys.argv)
        return
    common.halves_main(__doc__, measure, report)


if __name__ == "__main__":
    main()
