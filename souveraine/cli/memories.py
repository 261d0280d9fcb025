"""`remember`, `elevate`, `attest`, `attest-bytes`, `why`, `forget`, `visibility`: memories and their tiers."""

import click

from souveraine.cli.common import emit, json_option, pass_memory

TIER = click.Choice(["foundational", "constitutive"])
ATTESTATION_BYTES = 1024 * 1024    # a signed JSON object of a few hundred bytes


@click.command(name="remember")
@click.argument("text")
@click.option("--identity", "handle", default=None, help="Bind the memory to this identity (its handle).")
@click.option("--agent-id", default=None, metavar="UUID", help="Bind it if UUID is an active identity's id here; else it stays project-level.")
@click.option("--key", default="", help="A grouping key ('forget --key' forgets the whole group).")
@click.option("--visibility", default="public", type=click.Choice(["public", "private"]), help="Who may see it in a shared wake.")
@click.option("--source", default="", metavar="REF", help="Where it was learned, e.g. a journal wikilink.")
@click.option("--to", "to", default=None, metavar="PATH|auto",
              help="Instead: append TEXT as a durable rule or correction to PATH (auto: the file its words point to).")
@json_option
@pass_memory
def remember_cmd(memory, text, handle, agent_id, key, visibility, source, to, as_json):
    """Remember TEXT ('-' reads stdin) as one episodic memory; prints its id.

    With --to, TEXT is a durable rule or correction appended to a system/ file instead:
    a habit to system/human/prefs/workflow.md, a preference to system/human/prefs/communication.md,
    an interest to prefs/topics.md, a convention to system/project/conventions.md
    (committed as feat(memory), or fix(memory) for a correction).

    Example:

    \b
        souveraine remember "Ada prefers short answers" --identity ada --key prefs
        souveraine remember "Never deploy on Fridays" --to auto
    """
    from souveraine.errors import UsageError

    if handle and agent_id:
        raise UsageError("give --identity or --agent-id, not both")
    from souveraine.store import given

    text = given.stdin() if text == "-" else given.text(text, "TEXT")
    if to is not None:
        from souveraine.care.rules import remember_to

        result = remember_to(memory, text, None if to == "auto" else to)
        emit(result, as_json, lambda r: r["path"] if r["changed"] else f"{r['path']} already says so")
        return
    from souveraine.identity import memories

    result = memories.remember(memory, text, identity=handle, agent_id=agent_id, key=key,
                               visibility=visibility, source=source)
    emit(result, as_json, lambda r: r["id"])


@click.command(name="elevate")
@click.argument("memory_id", metavar="ID")
@click.option("--tier", required=True, type=TIER, help="foundational, or constitutive (needs a witness of another project).")
@click.option("--register-append", default="", metavar="TEXT", help="A line added to the register.")
@click.option("--wall", "walls", multiple=True, metavar="TEXT", help="A wall this memory adds (repeatable).")
@click.option("--deprecate-wall", "deprecated", multiple=True, metavar="TEXT", help="An earlier wall this memory retires (repeatable).")
@click.option("--subagent", "subagents", multiple=True, metavar="TEXT", help="A subagent this memory adds (repeatable).")
@click.option("--wake-text", default="", metavar="TEXT", help="Text appended to the wake text.")
@click.option("--attestation", "attestation_files", multiple=True, metavar="FILE", help="A witness's attestation from 'witness sign' (repeatable; '-' reads stdin).")
@json_option
@pass_memory
def elevate_cmd(memory, memory_id, tier, register_append, walls, deprecated, subagents, wake_text,
                attestation_files, as_json):
    """Raise a memory to foundational or constitutive, with the patch it makes to its identity.

    Every effect is one commit: tier, patch, attestations, a recognition on the chronicle,
    system/persona/effective.md. Refusals (exit 1) carry a code: invalid_signature,
    unknown_signing_key, witness_required, covenant_inactive,
    attester_self_witness_forbidden, content_changed.

    Example:

    \b
        souveraine elevate 0f3c9a1b --tier constitutive --wall "I keep my word" --attestation bea.json
    """
    from souveraine.identity import elevation

    patch = {"register_append": register_append, "walls_add": list(walls), "walls_deprecate": list(deprecated),
             "subagents_add": list(subagents), "wake_text_append": wake_text}
    result = elevation.elevate(memory, memory_id, tier, patch=patch,
                               attestations=_attestations(attestation_files))
    emit(result, as_json, lambda r: None)


@click.command(name="attest")
@click.argument("memory_id", metavar="ID")
@click.option("--attestation", "attestation_files", multiple=True, required=True, metavar="FILE", help="A witness's attestation (repeatable; '-' reads stdin).")
@json_option
@pass_memory
def attest_cmd(memory, memory_id, attestation_files, as_json):
    """Add a witness to a memory already elevated, at its tier (one commit).

    Example:

    \b
        souveraine attest 0f3c9a1b --attestation bea.json
    """
    from souveraine.identity import elevation

    result = elevation.attest(memory, memory_id, _attestations(attestation_files))
    emit(result, as_json, lambda r: None)


@click.command(name="attest-bytes")
@click.argument("memory_id", metavar="ID")
@click.option("--tier", required=True, type=TIER, help="The tier to be witnessed.")
@json_option
@pass_memory
def attest_bytes_cmd(memory, memory_id, tier, as_json):
    """Print the canonical bytes a witness signs for this memory and tier, in hex.

    sha256("memory-attestation/v1" 0x00 memory_id 0x00 tier 0x00 content_sha256_hex).
    --json adds what the witness passes to 'witness sign': the memory id, content_sha256,
    the text itself (for --text) and the subject's DID (for --subject).

    Example:

    \b
        souveraine attest-bytes 0f3c9a1b --tier constitutive --json
    """
    from souveraine.identity import memories, witness

    relpath, note = memories.load(memory, memory_id)
    memories.require_intact(relpath, note)
    digest = witness.canonical_bytes(str(note["id"]), tier, str(note["content_sha256"]))
    data = {"memory_id": str(note["id"]), "tier": tier, "content_sha256": str(note["content_sha256"]),
            "canonical_bytes": digest.hex(), "text": memories.split(note.body)[0],
            "subject_did": _subject(memory, str(note.get("identity_id") or ""))}
    emit(data, as_json, lambda d: d["canonical_bytes"])


@click.command(name="why")
@click.argument("text")
@click.option("--identity", "handle", default=None, help="Only this identity (default: every identity).")
@json_option
@pass_memory
def why_cmd(memory, text, handle, as_json):
    """Trace a wall, register line, subagent or wake text to the memory, date and witnesses behind it.

    Example:

    \b
        souveraine why "keep my word"
    """
    from souveraine.cli.common import say
    from souveraine.identity import compose

    found = compose.trace(memory, text, handle)
    if not found and not as_json:
        say(f"nothing in the effective expression mentions '{text}'")
    emit(found, as_json, _render_why)


@click.command(name="forget")
@click.argument("memory_id", metavar="[ID]", required=False)
@click.option("--key", default=None, help="Forget every memory with this key, or none of them.")
@json_option
@pass_memory
def forget_cmd(memory, memory_id, key, as_json):
    """Forget (delete) a memory at any tier, or every memory with --key; one commit.

    A shaping memory's patch leaves the effective expression in the same commit. Refused
    (paid_memory_receipt_preserved) when an attestation is a paid receipt.

    Example:

    \b
        souveraine forget --key holiday-2026
    """
    from souveraine.identity import forget

    emit(forget.forget(memory, memory_id, key=key), as_json, lambda r: None)


@click.command(name="visibility")
@click.argument("memory_id", metavar="ID")
@click.argument("visibility", type=click.Choice(["private", "public"]))
@json_option
@pass_memory
def visibility_cmd(memory, memory_id, visibility, as_json):
    """Make a memory private or public (its hash and witnesses are untouched).

    Example:

    \b
        souveraine visibility 0f3c9a1b private
    """
    from souveraine.identity import memories

    emit(memories.set_visibility(memory, memory_id, visibility), as_json, lambda r: None)


def _attestations(files) -> list[dict]:
    from souveraine.identity import witness

    from souveraine.store import given

    found = []
    for source in files:
        found += witness.from_json(given.read_or_stdin(source, "the attestation", ATTESTATION_BYTES), source)
    return found


def _subject(memory, identity_id: str) -> str:
    from souveraine.identity import identities

    found = identities.by_id(memory, identity_id) if identity_id else None
    return found.did if found else ""


def _render_why(found: list[dict]) -> str:
    lines = []
    for item in found:
        source = item["source"]
        if source.get("declared"):
            origin = f"declared in identities/{item['identity']}.md"
        else:
            witnesses = ", ".join(source["attesters"]) or "no witness"
            origin = (f"memory {source['memory_id'][:8]} ({source['tier']}, elevated {source['elevated'][:10]}), "
                      f"witnessed by {witnesses} — {source['path']}")
        lines.append(f"{item['identity']} · {item['kind']}: {item['text']}\n  {origin}")
    return "\n".join(lines)
