"""A note's `description`, written from the note itself when a person left none."""

import posixpath
import re

from souveraine.care import sections

LIMIT = 120
_MARKUP = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]|\*+|`+|^[-+*>]\s+(?:\[.\]\s+)?|^\d+\.\s+|\s\^[A-Za-z0-9-]+$")


def describe(body: str, path: str) -> str:
    """The first sentence of its prose; else its first heading; else its file name."""
    for paragraph in sections.paragraphs(body):
        if paragraph.startswith(("#", "```", "~~~", "|", "<!--", "---")):
            continue
        text = " ".join(_plain(line) for line in paragraph.splitlines()).strip()
        if text:
            return _clip(re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0])
    marks = sections.headings(body)
    if marks:
        return _clip(_plain(marks[0][1]))
    return _clip(posixpath.splitext(posixpath.basename(path))[0].replace("-", " ").replace("_", " ").capitalize())


def fill(note, path: str) -> str:
    """Give ``note`` a description if it has none; returns the one it has."""
    current = note.get("description")
    if isinstance(current, str) and current.strip():
        return current
    note["description"] = describe(note.body, path)
    return note["description"]


def _plain(line: str) -> str:
    return _MARKUP.sub(lambda m: m[1] or "", line.strip()).strip()


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LIMIT else text[:LIMIT - 1].rstrip() + "…"
