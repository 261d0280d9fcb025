"""The flat properties reader gives what its first, lazy patterns gave, on any lines."""

import random
import re

import pytest

from souveraine.store import notes

_LAZY_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_-]*):(?: +(.*?))? *")
_LAZY_ITEM = re.compile(r"( *)- +(.*?) *")
PIECES = ["key", "tags", "a", "b-c", "_x", ":", ": ", " ", "  ", "- ", "-", "'q'", "'it''s'", '"d"', '"', "'", "#",
          " #", "[]", "[x", "\t", "2026-01-05", "yes", "~", "é", "Tomás", "…", "{", "|", ">"]


def _lazy_flat(yaml_text):
    """store.notes.flat as first written, with lazy patterns."""
    if notes._UNREADABLE.search(yaml_text):
        return None
    found, bare, items, indent = {}, [], None, None
    for line in yaml_text.split("\n"):
        if not line.strip(" ") or line.lstrip(" ").startswith("#"):
            continue
        item = _LAZY_ITEM.fullmatch(line)
        if item:
            value = notes._flat_scalar(item[2]) if item[2] else None
            if items is None or indent not in (None, item[1]) or value is None:
                return None
            items.append(value)
            indent = item[1]
            continue
        key = _LAZY_KEY.fullmatch(line)
        if not key or key[1] in found:
            return None
        items, indent = (None, None) if key[2] else ([], None)
        found[key[1]] = notes._flat_scalar(key[2]) if key[2] else items
        if found[key[1]] is None:
            return None
        if not key[2]:
            bare.append(key[1])
    for key in bare:
        found[key] = found[key] or None
    return found


def _line(rng):
    kind = rng.random()
    value = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 4)))
    if kind < 0.45:
        return f"{rng.choice(['key', 'tags', 'id', 'a-b', 'x_1'])}:{rng.choice(['', ' ', '  '])}{value}{' ' * rng.randint(0, 2)}"
    if kind < 0.8:
        return f"{' ' * rng.randint(0, 3)}-{' ' * rng.randint(0, 2)}{value}{' ' * rng.randint(0, 2)}"
    return value


@pytest.mark.parametrize("seed", range(20))
def test_the_flat_reader_reads_as_the_lazy_patterns_did(seed):
    rng = random.Random(seed)
    for _ in range(300):
        text = "\n".join(_line(rng) for _ in range(rng.randint(1, 6)))
        assert notes.flat(text) == _lazy_flat(text), text


def test_a_real_memory_reads_alike():
    text = ("id: 83560b4a\ntier: episodic\ncreated: '2025-12-02T20:20:07+00:00'\nidentity_id: ''\n"
            "source: '[[journal/2025/12/2025-12-02#^t201907a84e2]]'\ndescription: A walk, then tea…  \n"
            "tags:\n  - memory\n  - episodic  \n")
    assert notes.flat(text) == _lazy_flat(text) == {
        "id": "83560b4a", "tier": "episodic", "created": "2025-12-02T20:20:07+00:00", "identity_id": "",
        "source": "[[journal/2025/12/2025-12-02#^t201907a84e2]]", "description": "A walk, then tea…",
        "tags": ["memory", "episodic"]}


def test_the_unreadable_characters_are_the_complement_of_the_printable_ranges():
    """notes._UNREADABLE names what is not printable (cheap to compile): exactly what lies outside
    the printable ranges YAML reads, a line break excepted; checked at every range's edges."""
    printable = [(0x0A, 0x0A), (0x20, 0x7E), (0xA0, 0x2027), (0x202A, 0xD7FF), (0xE000, 0xFEFE), (0xFF00, 0xFFFD),
                 (0x10000, 0x10FFFF)]
    edges = {c + d for lo, hi in printable for c in (lo, hi) for d in (-1, 0, 1)} | set(range(0x100))
    for code in sorted(c for c in edges | set(range(0x100, 0x110000, 991)) if 0 <= c <= 0x10FFFF):
        readable = any(lo <= code <= hi for lo, hi in printable)
        assert (notes._UNREADABLE.search(chr(code)) is None) == readable, hex(code)
