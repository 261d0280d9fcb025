"""The wake's sections in a fixed order — and the first two: who you are, what shaped you.

Then the pinned system/ files and the synthesized essence (pinned.py), the inner voice's
tail, what surfaces now and recent memory (now.py), and what can be loaded on demand
(index.py). Nothing scans journal/ or memories/ wholesale: the identity keeps its shaping
memories in order, recent memories come from file names, the inner voice from its end.
"""

from souveraine.store import layout
from souveraine.store.memory import Memory
from souveraine.identity.catalog import FOLDER, Catalog, catalog
from souveraine.wake.document import CUT_FOUNDATIONAL, Part
from souveraine.wake.foundations import foundations as read_foundations
from souveraine.wake.foundations import read as read_note
from souveraine.wake.atwork import at_work, presence
from souveraine.wake.index import on_demand
from souveraine.wake.now import inner_voice, recent, surfacing
from souveraine.wake.pinned import synthesized, system
from souveraine.wake.privacy import Viewport


def parts(memory: Memory, handle: str | None, view: Viewport) -> tuple[str, list[Part]]:
    """The identity's handle and every part of the wake, in document order."""
    foundations = read_foundations(memory, handle)
    if view.bandwidth == "minimal":            # presence only (§III.3): one line
        return (foundations or {}).get("handle", ""), [presence(memory)]
    shelf = catalog(memory)
    out = [you(foundations, view)]
    out += shaped_by(memory, foundations, shelf, view)
    out += system(memory, view)
    out += synthesized(memory, view)
    out += inner_voice(memory, view)
    out.append(surfacing(memory, view))
    out += at_work(memory, view)
    out += recent(memory, shelf, view)
    out += on_demand(memory, view)
    return (foundations or {}).get("handle", ""), out


# -- who you are ---------------------------------------------------------------------------

def you(found: dict | None, view: Viewport) -> Part:
    if found is None:
        empty = {"register": "", "walls": [], "subagents": [], "wake_text": ""}
        data = {"handle": "", "did": "", "status": "", "effective_expression": empty, "expression": empty}
        md = "No identity is declared in this memory yet; `souveraine identity create HANDLE` makes one."
        return Part("you", "identity", data, md)
    expressed = found["effective"]
    clean = {"register": view.clean(expressed["register"]),
             "walls": [w for w in expressed["walls"] if not view.hides(w)],
             "subagents": [s for s in expressed["subagents"] if not view.hides(s)],
             "wake_text": view.clean(expressed["wake_text"])}
    data = {"handle": found["handle"], "did": found["did"], "status": found["status"], "effective_expression": clean,
            "expression": found["declared"]}
    lines = [f"You are **{found['handle']}**, `{found['did']}` ({found['status']})."]
    for title, value in (("Register", clean["register"]), ("Walls", clean["walls"]),
                         ("Subagents", clean["subagents"]), ("Wake text", clean["wake_text"])):
        if value:
            body = "\n".join(f"- {v}" for v in value) if isinstance(value, list) else value.strip()
            lines += ["", f"### {title}", "", body]
    return Part("you", f"identities/{found['handle']}.md", data, "\n".join(lines))


# -- what shaped you -----------------------------------------------------------------------

def shaped_by(memory: Memory, found: dict | None, shelf: Catalog, view: Viewport) -> list[Part]:
    """Constitutive memories (never cut), then foundational ones, each in elevation order.

    The identity's own come from its ``shaped_by`` list; memories elevated with no identity
    (project-level) come from the tier cache, after them, by elevation date.
    """
    items = list(found["shaped_by"]) if found else []
    known = {layout.memory_name(item["path"]) for item in items}
    bound = {"", found["id"]} if found else {""}
    extra = sorted((info.get("elevated", ""), name) for name, info in shelf.elevated.items()
                   if layout.memory_name(name) not in known and info.get("identity_id", "") in bound)
    items += [{"path": f"{FOLDER}/{name}", "tier": shelf.elevated[name]["tier"]} for _, name in extra]
    items.sort(key=lambda item: item["tier"] != "constitutive")   # stable: keeps elevation order
    held = found["notes"] if found else {}
    out = []
    for n, item in enumerate(items):
        part = _shaping(memory, item, held, view)
        if part is None:
            continue
        if item["tier"] != "constitutive":
            part.cut, part.seq = CUT_FOUNDATIONAL, n
        out.append(part)
    return out


def _shaping(memory: Memory, item: dict, held: dict, view: Viewport) -> Part | None:
    from souveraine.identity import memories

    relpath = item["path"]
    if relpath not in held and not memory.exists(relpath):
        return None
    note = held.get(relpath) or read_note(memory, relpath)
    if not view.allows(relpath, str(note.get("visibility") or "public")):
        return None
    text = view.clean(memories.split(note.body)[0].strip())
    data = {"id": str(note.get("id", "")), "path": relpath, "tier": str(note.get("tier", "")),
            "created": str(note.get("created", ""))[:10], "elevated": str(note.get("elevated", ""))[:10],
            "attesters": [str(a) for a in note.get("attesters") or []], "text": text}
    data.update(memory_id=data["id"], content=text, elevated_at=str(note.get("elevated", "")))  # the spec's names
    witnesses = ("witnessed by " + ", ".join(f"`{d}`" for d in data["attesters"])) if data["attesters"] else "not witnessed"
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    md = (f"- **{data['tier']}** · {data['created']} (elevated {data['elevated']}) · {witnesses}"
          f" · [[{relpath.removesuffix('.md')}]]\n\n{quoted}\n")
    return Part("shaped_by", relpath, data, md)


