"""A note's `description`, written from the note itself when a person left none."""

import posixpath
import re


LIMIT = 120
_MARKUP = re.compile(r"\*+|`+|^\[.\]\s+|\s\^[A-Za-z0-9-]+$")


def describe(body: str, path: str) -> str:
    """The first sentence of its prose (a paragraph or a list item: read by ``language.markdown``,
    never a line of code); else its first heading; else its file name."""
    from souveraine.language import markdown

    for paragraph, _ in markdown.paragraphs(body, nested=True):
        if paragraph.startswith("|"):
            continue
        text = " ".join(_plain(line) for line in paragraph.splitlines()).strip()
        if text:
            return _clip(re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0])
    marks = markdown.headings(body)
    if marks:
        return _clip(_plain(marks[0].text))
    return _clip(posixpath.splitext(posixpath.basename(path))[0].replace("-", " ").replace("_", " ").capitalize())


def fill(note, path: str) -> str:
    """Give ``note`` a description if it has none; returns the one it has."""
    current = note.get("description")
    if isinstance(current, str) and current.strip():
        return current
    note["description"] = describe(note.body, path)
    return note["description"]


def _plain(line: str) -> str:
    from souveraine.language import markdown

    return _MARKUP.sub("", markdown.shown(line.strip())).strip()


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LIMIT else text[:LIMIT - 1].rstrip() + "…"
