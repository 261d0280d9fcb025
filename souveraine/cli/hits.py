"""How recall's hits read as text: shared by the Click command and the lean path (cli/lean.py)."""


def render_hits(hits: list[dict]) -> str:
    if not hits:
        return ""
    lines = []
    for hit in hits:
        where = f"{hit['path']}#^{hit['block']}" if hit["block"] else hit["path"]
        when = (hit["date"] or "undated")[:16].replace("T", " ")
        lines.append(f"{when:<16}  {hit['tier'] or hit['kind']:<12}  {hit['score']:>6.3f}  {where}")
        if hit.get("context"):
            lines.extend(f"  {'>' if turn['hit'] else ' '} {turn['role']:<9} {' '.join(turn['text'].split())}"
                         for turn in hit["context"])
        else:
            lines.append(f"    {hit['snippet']}")
    return "\n".join(lines)
