"""The wake as Markdown for a model's context (and a person), or as JSON for programs.

Both carry the same parts; neither holds a clock time, so the same memory gives the same
bytes. The JSON schema is documented in docs/WAKE.md and versioned by ``schema``.
"""

from souveraine.wake.document import SECTIONS, Part, Wake

SCHEMA = "souveraine-wake/1"
TITLES = {
    "presence": "Presence",
    "you": "Who you are",
    "shaped_by": "What shaped you",
    "system": "Pinned",
    "synthesized": "Synthesized essence",
    "inner_voice": "Inner voice",
    "surfacing": "Surfacing now",
    "at_work": "At work",
    "memory": "Recent memory",
    "on_demand": "On demand",
}
LEFT_OUT = "Left out"


def markdown(wake: Wake) -> str:
    who = f" — {wake.identity}" if wake.identity else ""
    shared = ", shared" if wake.shared else ""
    cap = f", {wake.max_chars:,} characters" if wake.max_chars is not None else ""
    out = [f"# Wake{who}", "",
           f"Bandwidth {wake.bandwidth}{shared} · model {wake.model} · budget {wake.limit:,} tokens{cap}."]
    for name in SECTIONS:
        chunk = _section(wake.section(name))
        if chunk:
            out += ["", f"## {TITLES[name]}", "", chunk]
    notice = left_out(wake.left_out)
    if notice:
        out += ["", f"## {LEFT_OUT}", "", "Over budget, these were left out of this wake:", ""]
        out += [f"- {entry['what']}: {entry['how']}" for entry in notice]
    return "\n".join(out).rstrip("\n") + "\n"


def _section(parts: list[Part]) -> str:
    out, previous = [], None
    for part in parts:
        chunk = part.md.strip("\n")
        item = chunk.startswith("- ") and "\n" not in chunk
        if previous is not None:
            out.append("\n" if item and previous else "\n\n")
        out.append(chunk)
        previous = item
    return "".join(out)


def data(wake: Wake) -> dict:
    by = {name: [p.data for p in wake.section(name)] for name in SECTIONS}
    surfacing = by["surfacing"][0] if by["surfacing"] else {"items": [], "waiting": None}
    totals = next((p.data for p in wake.section("memory") if p.key == "total"), {})
    empty = {"register": "", "walls": [], "subagents": [], "wake_text": ""}
    nobody = {"handle": "", "did": "", "status": "", "effective_expression": empty, "expression": empty}
    return {
        "schema": SCHEMA,
        "identity": wake.identity,
        "model": wake.model,
        "bandwidth": wake.bandwidth,
        "shared": wake.shared,
        "you": by["you"][0] if by["you"] else nobody,
        "shaped_by": by["shaped_by"],
        "system": by["system"],
        "synthesized": by["synthesized"],
        "inner_voice": by["inner_voice"],
        "surfacing": surfacing["items"],
        "waiting": surfacing["waiting"],
        "memory": {"recent": [p.data for p in wake.section("memory") if p.key != "total"], "total": totals},
        "on_demand": by["on_demand"],
        "at_work": by["at_work"],
        "presence": by["presence"][0] if by["presence"] else None,
        "budget": {"limit": wake.limit, "used": wake.used, "max_chars": wake.max_chars, "chars": wake.chars,
                   "left_out": [{**e, "how": e["how"].replace("`", "")} for e in left_out(wake.left_out)]},
        "you_remember": [d for d in by["shaped_by"] if d["tier"] == "constitutive"],  # the specification's branch
    }


def left_out(parts: list[Part]) -> list[dict]:
    """One entry per section left out (whole or in part), in the order they went: what, and how to load it."""
    out = []
    for name in dict.fromkeys(p.section for p in parts):
        dropped = [p for p in parts if p.section == name]
        if dropped:
            what, how = _notice(name, dropped)
            out.append({"section": name, "what": what, "how": how, "items": [p.key for p in dropped]})
    return out


def _notice(section: str, dropped: list[Part]) -> tuple[str, str]:
    n = len(dropped)
    paths = ", ".join(f"`{p.key}`" for p in dropped)
    if section == "memory":
        return (f"{n} recent memor{'y' if n == 1 else 'ies'}",
                "`souveraine recall WORDS`, or the newest files in `memories/<year>/` (names start with their date)")
    if section == "inner_voice":
        return f"{n} older thought{'s' if n > 1 else ''} of the inner voice", "open `system/metacognition/subconscious.md` (its end)"
    if section == "on_demand":
        return f"{n} entr{'y' if n == 1 else 'ies'} of the on-demand index", "browse " + paths
    if section == "surfacing":
        return "what surfaces now", "`souveraine surface --peek` (or `souveraine inbox`)"
    if section == "cut":
        sizes = ", ".join(f"`{p.key}` ({p.data['shown']:,} of {p.data['of']:,} characters shown)" for p in dropped)
        return (f"the rest of {n} oversized pinned file{'s' if n > 1 else ''}",
                f"open {sizes}, or `souveraine recall WORDS` for the part you need")
    if section == "at_work":
        return f"{n} line{'s' if n > 1 else ''} of what is at work now", "`souveraine status`"
    if section == "shaped_by":
        return f"{n} foundational memor{'y' if n == 1 else 'ies'}", "open " + paths + "; `souveraine why WORDS` says what each shaped"
    label = "the synthesized essence" if section == "synthesized" else f"{n} pinned file{'s' if n > 1 else ''}"
    return label, "open " + paths
