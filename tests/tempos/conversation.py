"""Scripted conversations: turns written through store.journal and committed, as persist would."""

import json
import re
from datetime import datetime, timedelta

from souveraine.store import journal


def say(memory, when: str, turns: list[tuple[str, str]], session: str = "s1", step: int = 60) -> list[str]:
    """Append ``(role, text)`` turns from ``when`` (ISO), one every ``step`` seconds; their block ids."""
    at = datetime.fromisoformat(when)
    relpath = journal.day_path(at.date())
    blocks = []
    with memory.change(f"chore(journal): {len(turns)} turns") as change:
        for role, text in turns:
            full = memory.root / relpath
            existing = full.read_text(encoding="utf-8") if full.exists() else ""
            block = journal.block_id(at, role, text, session, journal.block_ids(existing))
            change.append(relpath, (journal.header(at.date()) if not existing else "")
                          + journal.render(at, role, text, session, block))
            blocks.append(block)
            at += timedelta(seconds=step)
    return blocks


def filler(n: int, topic: str = "the garden") -> list[tuple[str, str]]:
    """``n`` plain turns, alternating speakers, about nothing in particular."""
    lines = [
        "the tomatoes need water in the evening when the soil is dry",
        "the compost heap is warm and the worms are busy under the leaves",
        "we talked about the weather and the light over the hedges",
        "the seedlings are slow this year because the nights are still cold",
        "the path by the shed needs sweeping after the wind",
    ]
    return [("user" if i % 2 == 0 else "assistant", f"About {topic}: {lines[i % len(lines)]}, as usual (note {i}).")
            for i in range(n)]


def configure(memory, section: str, **values) -> None:
    """Set keys of one [section] of the memory's souveraine.toml (adding it if missing) and commit."""
    text = memory.read_text("souveraine.toml")
    header = f"[{section}]"
    if header not in text:
        text += f"\n{header}\n"
    for key, value in values.items():
        line = f"{key} = {json.dumps(value) if not isinstance(value, bool) else str(value).lower()}"
        start = text.index(header) + len(header)
        end = text.find("\n[", start)
        end = len(text) if end < 0 else end
        body = text[start:end]
        body = re.sub(rf"(?m)^{key} = .*$", line, body) if re.search(rf"(?m)^{key} = ", body) else f"\n{line}{body}"
        text = text[:start] + body + text[end:]
    with memory.change("chore(memory): configure") as change:
        change.write("souveraine.toml", text)
    memory.__dict__.pop("config", None)
