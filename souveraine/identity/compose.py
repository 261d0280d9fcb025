"""Composition: the effective expression = declared + constitutive patches + foundational patches.

Patches apply in elevation order within each tier, constitutive first; only memories bound
to the identity take part (its ``shaped_by`` list, kept by elevate and forget, so nothing
here scans memories/). Walls are de-duplicated; a later memory may deprecate a wall, as its
own event. Every line keeps its source, so ``why`` can name the memory, date and witnesses.
"""

from dataclasses import dataclass, field

from souveraine.identity import identities
from souveraine.identity.memories import link
from souveraine.store import layout, notes
from souveraine.store.memory import Memory

EFFECTIVE = "system/persona/effective.md"
PATCH = {  # expression_patch_<key> -> is it a list
    "register_append": False,
    "walls_add": True,
    "walls_deprecate": True,
    "subagents_add": True,
    "wake_text_append": False,
}
DECLARED = {"declared": True}


def patch_of(note: notes.Note) -> dict:
    patch = {}
    for key, is_list in PATCH.items():
        value = note.get(f"expression_patch_{key}")
        if value:
            patch[key] = [str(v) for v in value] if is_list else str(value)
    return patch


def patch_properties(patch: dict) -> dict:
    """A patch as flat properties: ``expression_patch_walls_add: [...]``…"""
    return {f"expression_patch_{key}": patch[key] for key in PATCH if patch.get(key)}


def shaping(memory: Memory, identity: identities.Identity) -> list[dict]:
    """The memories that shaped ``identity``, in composition order: constitutive, then foundational."""
    return shaping_from(note_reader(memory), identity)


def note_reader(memory: Memory):
    """``read(relpath)`` → the note there, or None: what composing needs of a memory."""
    return lambda relpath: notes.read(memory.path(relpath)) if memory.exists(relpath) else None


def shaping_from(read, identity: identities.Identity) -> list[dict]:
    """``shaping`` over any snapshot: ``read(relpath)`` gives a note or None (the laws pass git's).

    A memory is read where ``shaped_by`` says or, moved since, in its other place; its ``path``
    stays the one listed (effective.md links it: moving a memory changes nothing here until
    the links are rewritten).
    """
    items = []
    for order, relpath in enumerate(identity.shaped_by, 1):
        note = None
        for place in layout.memory_places(relpath):
            note = read(place)
            if note is not None:
                break
        if note is None:
            continue
        items.append({"id": str(note.get("id", "")), "path": relpath, "tier": str(note.get("tier", "")),
                      "elevated": str(note.get("elevated", "")), "order": order,
                      "attesters": [str(a) for a in note.get("attesters") or []], "patch": patch_of(note)})
    return sorted(items, key=lambda item: (item["tier"] != "constitutive", item["order"]))


@dataclass
class Expression:
    register: list[dict] = field(default_factory=list)
    walls: list[dict] = field(default_factory=list)
    deprecated: list[dict] = field(default_factory=list)
    subagents: list[dict] = field(default_factory=list)
    wake_text: list[dict] = field(default_factory=list)

    def plain(self) -> dict:
        return {"register": "\n".join(e["text"] for e in self.register),
                "walls": [e["text"] for e in self.walls],
                "subagents": [e["text"] for e in self.subagents],
                "wake_text": "\n\n".join(e["text"] for e in self.wake_text)}

    def lines(self):
        for kind in ("register", "walls", "subagents", "wake_text"):
            for entry in getattr(self, kind):
                yield kind, entry
        for entry in self.deprecated:
            yield "deprecated_walls", entry


def compose(declared: dict, shaped: list[dict]) -> Expression:
    out = Expression()
    _add_lines(out.register, _lines(declared.get("register", "")), DECLARED)
    _add_unique(out.walls, declared.get("walls", []), DECLARED)
    _add_unique(out.subagents, declared.get("subagents", []), DECLARED)
    _add_lines(out.wake_text, [declared.get("wake_text", "")], DECLARED)
    for item in shaped:
        source = _source(item)
        patch = item["patch"]
        _add_lines(out.register, _lines(patch.get("register_append", "")), source)
        _add_unique(out.walls, patch.get("walls_add", []), source)
        for wall in patch.get("walls_deprecate", []):
            _deprecate(out, wall, source)
        _add_unique(out.subagents, patch.get("subagents_add", []), source)
        _add_lines(out.wake_text, [patch.get("wake_text_append", "")], source)
    return out


def expression(memory: Memory, handle: str) -> tuple[identities.Identity, list[dict], Expression]:
    identity = identities.load(memory, handle)
    shaped = shaping(memory, identity)
    return identity, shaped, compose(identity.declared, shaped)


def effective(memory: Memory, handle: str) -> dict:
    """``{register, walls, subagents, wake_text}`` as the identity is expressed now (for wake)."""
    return expression(memory, handle)[2].plain()


def foundations(memory: Memory, handle: str | None = None) -> dict:
    """``{declared, shaped_by[], effective}``: the identity, and every memory that shaped it."""
    identity = identities.resolve(memory, handle)
    shaped = shaping(memory, identity)
    return {"handle": identity.handle, "id": identity.id, "did": identity.did, "status": identity.status,
            "declared": identity.declared, "shaped_by": shaped,
            "effective": compose(identity.declared, shaped).plain()}


def trace(memory: Memory, text: str, handle: str | None = None) -> list[dict]:
    """``why``: each effective line containing ``text``, with the memory, date and witnesses behind it."""
    needle = _key(text)
    chosen = [identities.resolve(memory, handle)] if handle else identities.all_identities(memory)
    found = []
    for identity in chosen:
        expressed = compose(identity.declared, shaping(memory, identity))
        for kind, entry in expressed.lines():
            if needle in _key(entry["text"]):
                found.append({"identity": identity.handle, "kind": kind, **entry})
    return found


def render(memory: Memory) -> str:
    """system/persona/effective.md: every identity's expression in prose and lists, with its sources."""
    return render_from(note_reader(memory), identities.all_identities(memory))


def recompose(memory: Memory) -> dict:
    """Regenerate effective.md from the identities as they are on disk (a person's edits to a
    declared expression included), committing both in one ``feat(identity)`` commit."""
    with memory.change("feat(identity): recompose the effective expression") as change:
        for identity in identities.all_identities(memory):
            change.touched(identity.path)
        change.write(EFFECTIVE, render(memory))
    return {"path": EFFECTIVE, "commit": change.sha}


def render_from(read, everyone: list[identities.Identity]) -> str:
    """``render`` over any snapshot (the laws check effective.md is exactly this)."""
    sections, links = [], []
    for identity in everyone:
        shaped = shaping_from(read, identity)
        links += [link(item["path"]) for item in shaped]
        sections.append(_section(identity, shaped, compose(identity.declared, shaped)))
    note = notes.new({
        "type": "persona",
        "generated": True,
        "identities": [i.handle for i in everyone],
        "shaped_by": links,
        "description": "The effective expression — declared identity plus every memory that shaped it. "
                       "Regenerated by elevate, attest and forget.",
        "tags": ["system", "persona"],
    }, "# Effective expression\n\nGenerated by Souveraine; do not edit by hand. `git log -p` on this file is the\n"
       "identity's history.\n\n" + ("\n".join(sections) if sections else "No identity has been declared yet.\n"))
    return notes.dumps(note)


def _section(identity: identities.Identity, shaped: list[dict], expressed: Expression) -> str:
    out = [f"## {identity.handle}", "", f"`{identity.did}` · {identity.status} · declared in [[{identity.path.removesuffix('.md')}]]", ""]
    if not shaped:
        out += ["No memory has shaped this identity yet: it is as declared.", ""]
    for title, entries in (("Register", expressed.register), ("Walls", expressed.walls),
                           ("Deprecated walls", expressed.deprecated), ("Subagents", expressed.subagents),
                           ("Wake text", expressed.wake_text)):
        if entries:
            out += [f"### {title}", ""] + [f"- {_one_line(e['text'])} — {_credit(e['source'])}" for e in entries] + [""]
    if shaped:
        out += ["### Shaped by", "", "Constitutive first, then foundational, each in the order they were elevated.", ""]
        out += [f"{n}. {link(item['path'])} — {_credit(_source(item), linked=False)}" for n, item in enumerate(shaped, 1)] + [""]
    return "\n".join(out)


def _credit(source: dict, linked: bool = True) -> str:
    if source.get("declared"):
        return "declared"
    witnesses = ", ".join(f"`{d}`" for d in source["attesters"]) or "no witness"
    where = f" ({link(source['path'])})" if linked else ""
    return f"{source['tier']}, elevated {source['elevated'][:10]}, witnessed by {witnesses}{where}"


def _source(item: dict) -> dict:
    return {"memory_id": item["id"], "path": item["path"], "tier": item["tier"],
            "elevated": item["elevated"], "attesters": item["attesters"]}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in str(text or "").splitlines() if line.strip()]


def _add_lines(target: list[dict], texts: list[str], source: dict) -> None:
    target.extend({"text": str(t).strip(), "source": source} for t in texts if str(t or "").strip())


def _add_unique(target: list[dict], texts: list[str], source: dict) -> None:
    seen = {_key(e["text"]) for e in target}
    for text in texts:
        text = " ".join(str(text).split())
        if text and _key(text) not in seen:
            seen.add(_key(text))
            target.append({"text": text, "source": source})


def _deprecate(out: Expression, wall: str, source: dict) -> None:
    key = _key(wall)
    for entry in [e for e in out.walls if _key(e["text"]) == key]:
        out.walls.remove(entry)
        out.deprecated.append({"text": entry["text"], "source": source, "added_by": entry["source"]})


def _key(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _one_line(text: str) -> str:
    return " ".join(text.split())
