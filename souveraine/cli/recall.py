"""`souveraine recall` and `souveraine index`."""

import click

from souveraine.cli.common import emit, json_option, pass_memory, progress, say
from souveraine.cli.hits import render_hits

KIND_NAMES = {"turn": "turns", "memory": "memories", "person": "people", "domain": "domains",
              "reference": "reference notes", "archive": "archive notes"}
TIERS = click.Choice(["episodic", "foundational", "constitutive"])


@click.command(name="recall")
@click.argument("words", nargs=-1)
@click.option("--since", metavar="DATE", help="Only from this date: 2026-03-14, 2026-03, 2026, or 'last week'.")
@click.option("--until", metavar="DATE", help="Only up to this date (its whole month or year when it names one).")
@click.option("--tier", type=TIERS, help="Only this tier (journal turns are episodic).")
@click.option("--in", "within", metavar="PATH", help="Only under this folder or file, e.g. journal/2026 or people.")
@click.option("--person", metavar="NAME", help="Only turns and notes that name this person or link to their note.")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="How many hits.")
@click.option("--private", is_flag=True, help="Include private memories.")
@click.option("--no-recency", "no_recency", is_flag=True, help="Rank by relevance and tier only; old and new alike.")
@click.option("--now", metavar="DATE", help="Count 'last week' and dates without a year from this day, not from the latest turn.")
@click.option("--context", type=click.IntRange(0, 20), default=0, metavar="N",
              help="Show each turn found with the N turns before and after it in its conversation.")
@click.option("--all", "every", is_flag=True, help="Let a note and the turn it was written from both take a place.")
@click.option("--semantic/--no-semantic", default=None,
              help="Rank by meaning too, with sentence vectors (the static encoder, or MiniLM where"
                   " the semantic extra is installed; default: [recall] semantic).")
@json_option
@pass_memory
def recall_cmd(memory, words, since, until, tier, within, person, limit, private, no_recency, now, context, every,
               semantic, as_json):
    """Find what the memory holds: journal turns, memories, people, domains, reference, archive.

    Ranked by relevance (BM25), tier, and recency for episodic items; an answer also by the
    question before it. Dates written in the query ("in March", "last week", "between May 3
    and 9") raise what was said or told of then, and remove nothing; --since/--until filter.
    Relative dates count from the memory's latest turn (or --now). Matched words are marked
    «so» in each snippet.

    Example:

    \b
        souveraine recall "what did I say about that book in March"
        souveraine recall budget --since 2026-01 --tier foundational --json
        souveraine recall "how often does he work out" --context 1
    """
    from souveraine.errors import UsageError
    from souveraine.recall import warm
    from souveraine.recall.search import recall

    if not words and not any((since, until, tier, within, person)):
        raise UsageError("give words to look for, or a filter such as --since 2026-03 or --person ada")
    options = dict(since=since, until=until, tier=tier, within=within, person=person, limit=limit, private=private,
                   recency=not no_recency, now=now, context=context, every=every, semantic=semantic)
    result = (warm.recall(memory, " ".join(words), **options)
              or recall(memory, " ".join(words), **options, progress=progress("sentence vectors", not as_json)))
    if result.readings and not as_json:
        for reading in result.readings:
            span = reading.span
            say(f"dates: {span.since or '…'} to {span.until or '…'} (from {reading.phrase!r}"
                f"{'; ' + reading.note if reading.note else ''})")
    emit([hit.to_dict() for hit in result.hits], as_json, render_hits)
    if not result.hits and not as_json:
        say("nothing found")


@click.command(name="index")
@click.option("--rebuild", is_flag=True, help="Read every file again into a new index.")
@click.option("--scan", is_flag=True, help="Compare every file with what the index read (git status), not only what can have changed.")
@click.option("--vectors", is_flag=True,
              help="Also compute the sentence vectors documents lack, so no semantic query waits for them.")
@json_option
@pass_memory
def index_cmd(memory, rebuild, scan, vectors, as_json):
    """Bring the search index up to date (or rebuild it) and show what it holds.

    The index is a cache in .souveraine/index.sqlite, git-ignored; recall keeps it fresh by
    itself, and a missing or corrupt one is rebuilt without a word. An uncommitted edit in
    place of an old journal day, memory or archive note is seen by the next scan (every five
    minutes) or at once with --scan.

    Example:

    \b
        souveraine index
        souveraine index --scan
        souveraine index --rebuild --json
        souveraine index --vectors
    """
    from souveraine.recall import index

    if vectors:
        from souveraine.recall import semantic

        semantic.require(memory)
    update = (index.rebuild(memory, progress=progress("indexing", not as_json)) if rebuild
              else index.refresh(memory, scan=scan))
    shown = {**index.status(memory), "update": update.to_dict()}
    if vectors:
        shown["vectors"] = _fill(memory, progress("sentence vectors", not as_json))
    emit(shown, as_json, render_status)


def _fill(memory, told) -> dict:
    import time

    from souveraine.recall import index, semantic

    began = time.monotonic()
    conn, _ = index.fresh(memory)
    try:
        which = semantic.current(memory)
        made = semantic.fill(conn, semantic.location(memory), progress=told, which=which)
        held = semantic.Store(semantic.location(memory))
        try:
            count = held.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        finally:
            held.close()
    finally:
        conn.close()
    return {"computed": made, "held": count, "encoder": which.name, "seconds": round(time.monotonic() - began, 3)}


@click.command(name="serve")
@click.option("--idle", "idle_minutes", type=click.FloatRange(min=0, min_open=True), metavar="MINUTES",
              help="Exit after this long without a query (default: [recall] server_idle_minutes, 30).")
@click.option("--background", is_flag=True, help="Start it detached and return once it answers (nothing if one runs).")
@click.option("--status", is_flag=True, help="Say whether a server runs for this memory, and what it holds.")
@click.option("--stop", is_flag=True, help="Stop the server of this memory, if one runs.")
@json_option
@pass_memory
def serve_cmd(memory, idle_minutes, background, status, stop, as_json):
    """Keep recall warm for this memory: a small server that answers `recall` over a local socket.

    It keeps the search index open and the sentence encoder loaded, so a recall from the
    command line costs tens of milliseconds even with vectors: while one runs, `souveraine
    recall` sends its query there and prints the same output. It computes the vectors new
    documents lack while idle, and exits after --idle minutes without a query. With
    [recall] semantic = "auto" (the default), recall starts one in the background by itself. The socket (mode 0600) lives under $XDG_RUNTIME_DIR,
    else the temporary folder; .souveraine/recall-server.json says where.

    Example:

    \b
        souveraine serve --background
        souveraine serve --status
        souveraine serve --stop
    """
    from souveraine.errors import UsageError
    from souveraine.recall import server, warm

    if sum((background, status, stop)) > 1:
        raise UsageError("give one of --background, --status, --stop")
    if status:
        found = warm.talk(memory.root, {"op": "ping"}, 5)
        found = {k: v for k, v in found.items() if k != "ok"} if found else None
        if as_json:
            emit({"running": found is not None, **(found or {})}, True)
        elif found:
            emit(found, False, _render_server)
        else:
            say("no recall server runs for this memory")
        return
    if stop:
        record = server.stop(memory.root)
        if as_json:
            emit({"stopped": record is not None, **(record or {})}, True)
        elif record is None:
            say("no recall server runs for this memory")
        return
    if background:
        started = server.start(memory.root, idle_minutes)
        if as_json:
            emit({k: v for k, v in started.items() if k != "ok"}, True)
        return
    running = server.Server(memory.root, idle_minutes)
    try:
        running.run(lambda path: say(f"recall server for {memory.root}: {path}; exits after {running.idle / 60:g}"
                                     " minutes without a query (souveraine serve --stop)", as_json))
    except KeyboardInterrupt:
        pass


def _render_server(data: dict) -> str:
    return "\n".join([f"server     pid {data['pid']}, since {data['started']}, {data['served']} queries answered",
                      f"socket     {data['socket']}",
                      f"vectors    {data['vectors']}" + (f", {data['encoder']}" if data.get("encoder") else "")
                      + (", computing the missing ones" if data["filling"] else "")
                      + (f" ({data['filled']} computed ahead)" if data["filled"] else ""),
                      f"idle exit  after {data['idle_minutes']:g} minutes without a query"])


def render_status(data: dict) -> str:
    lines = [f"index      {data['path']} ({data['bytes'] / 1e6:.1f} MB)"]
    if "documents" in data:
        kinds = ", ".join(f"{n} {KIND_NAMES.get(kind, kind + 's')}" for kind, n in data["kinds"].items()) or "nothing"
        lines.append(f"documents  {data['documents']} from {data['files']} files: {kinds}")
        lines.append(f"commit     {(data['commit'] or '(none)')[:12]}, built {data['built']}")
        state = "up to date" if data["fresh"] else "behind (the next recall catches up)"
        if data["uncommitted"]:
            state += f", with {len(data['uncommitted'])} uncommitted files"
        lines.append(f"state      {state}")
    update = data["update"]
    lines.append(f"update     {update['mode']}: {update['files']} files read, {update['removed']} forgotten,"
                 f" {update['seconds'] * 1000:.0f} ms")
    if "vectors" in data:
        vectors = data["vectors"]
        lines.append(f"vectors    {vectors['held']} held, {vectors['computed']} computed now by {vectors['encoder']},"
                     f" {vectors['seconds']:.1f} s")
    return "\n".join(lines)
