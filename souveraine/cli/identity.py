"""`identity`, `covenant` and `witness`: who may be shaped here, who may witness, and signing."""

import json
import sys

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory


@click.group(name="identity", cls=DefaultGroup)
def identity_cmd():
    """Identities: a did:key each, and a declared expression (default: list).

    Example:

    \b
        souveraine identity create ada --wall "I do not lie about what I remember"
    """


@identity_cmd.command(name="create")
@click.argument("handle")
@click.option("--register", default="", help="The declared register: how the identity speaks.")
@click.option("--wall", "walls", multiple=True, metavar="TEXT", help="A declared wall (repeatable).")
@click.option("--subagent", "subagents", multiple=True, metavar="TEXT", help="A declared subagent (repeatable).")
@click.option("--wake-text", default="", help="Text the identity reads at every wake.")
@json_option
@pass_memory
def identity_create(memory, handle, register, walls, subagents, wake_text, as_json):
    """Make an identity: an ed25519 key pair, identities/HANDLE.md, one commit.

    The private key goes to $XDG_CONFIG_HOME/souveraine/keys/ (mode 0600), never into
    the memory. Prints the new DID.

    Example:

    \b
        souveraine identity create ada --register "warm, exact" --wall "no flattery"
    """
    from souveraine.identity import identities

    result = identities.create(memory, handle, register=register, walls=walls, subagents=subagents, wake_text=wake_text)
    emit(result, as_json, lambda r: r["did"])


@identity_cmd.command(name="show")
@click.argument("handle", required=False)
@json_option
@pass_memory
def identity_show(memory, handle, as_json):
    """The foundations view: declared expression, the memories that shaped it, the effective one.

    HANDLE defaults to the memory's identity.

    Example:

    \b
        souveraine identity show ada --json
    """
    from souveraine.identity import compose

    emit(compose.foundations(memory, handle), as_json, _render_foundations)


@identity_cmd.command(name="export")
@click.argument("handle", required=False)
@json_option
@pass_memory
def identity_export(memory, handle, as_json):
    """Print the identity's card (DID, public keys, project id) for a counterparty.

    The card is JSON either way; the counterparty passes it to 'covenant add --card'.

    Example:

    \b
        souveraine identity export ada > ada.card.json
    """
    from souveraine.identity import identities

    emit(identities.card(memory, handle), True)


@identity_cmd.command(name="recompose")
@json_option
@pass_memory
def identity_recompose(memory, as_json):
    """Regenerate system/persona/effective.md from the identities and the memories that shaped them.

    effective.md is generated, and the laws refuse a commit in which it differs from what
    the identities compose: after editing a declared expression in identities/HANDLE.md by
    hand, run this to commit both (one commit; nothing when nothing changed).

    Example:

    \b
        souveraine identity recompose
    """
    from souveraine.identity import compose

    emit(compose.recompose(memory), as_json, lambda r: None)


@identity_cmd.command(name="rotate")
@click.argument("handle", required=False)
@json_option
@pass_memory
def identity_rotate(memory, handle, as_json):
    """Give an identity a new key: a new did:key, announced by a statement the old key signs.

    The old key stays listed, so everything it signed stays valid; the private key of the
    new one is saved in the key folder. Send the new card ('identity export') to your
    counterparties: 'covenant add --card' accepts the rotation. Prints the new DID.

    Example:

    \b
        souveraine identity rotate ada && souveraine identity export ada > ada.card.json
    """
    from souveraine.identity import identities

    emit(identities.rotate(memory, handle), as_json, lambda r: r["did"])


@identity_cmd.command(name="list")
@json_option
@pass_memory
def identity_list(memory, as_json):
    """List the identities of this memory with their DIDs and status.

    Example:

    \b
        souveraine identity list --json
    """
    from souveraine.identity import identities

    found = [{"handle": i.handle, "id": i.id, "did": i.did, "status": i.status, "shaped_by": len(i.shaped_by)}
             for i in identities.all_identities(memory)]
    emit(found, as_json, lambda rows: "\n".join(f"{r['handle']}\t{r['status']}\t{r['did']}" for r in rows))


@click.group(name="covenant", cls=DefaultGroup)
def covenant_cmd():
    """Covenants: counterparties of other projects who may witness (default: list).

    Example:

    \b
        souveraine covenant add --card bea.card.json
    """


@covenant_cmd.command(name="add")
@click.option("--card", "card_file", metavar="FILE", help="A card printed by 'identity export' ('-' reads stdin).")
@click.option("--did", default="", help="The counterparty's did:key (instead of --card).")
@click.option("--key", "key_entries", multiple=True, metavar="ID=PUBKEY", help="A public key, multibase z6Mk… or hex (repeatable).")
@click.option("--project", "project_id", default="", metavar="PROJECT_ID", help="The counterparty's project id.")
@click.option("--handle", default="", help="The name to keep the covenant under (default: the card's handle).")
@json_option
@pass_memory
def covenant_add(memory, card_file, did, key_entries, project_id, handle, as_json):
    """Enter a covenant with a counterparty: their DID, keys and project, status active.

    Refused for a DID or project of this memory's own (attester_self_witness_forbidden).

    Example:

    \b
        souveraine covenant add --did did:key:z6Mk… --key 'did:key:z6Mk…#z6Mk…=z6Mk…' --project 7d0c…
    """
    from souveraine.errors import UsageError
    from souveraine.identity import covenants
    from souveraine.identity import did as didkey
    from souveraine.store import given

    if card_file and (did or key_entries or project_id):
        raise UsageError("give --card FILE or --did/--key/--project, not both")
    if card_file:
        card = covenants.parse_card(given.stdin("the card")) if card_file == "-" else covenants.read_card(card_file)
        handle = handle or card["handle"]
        did, keys, project_id = card["did"], card["keys"], card["project_id"]
    else:
        if not did:
            raise UsageError("give --card FILE, or --did DID with --key ID=PUBKEY and --project PROJECT_ID")
        keys = dict(didkey.parse_key_entry(entry) for entry in key_entries)
        card = {}
    result = covenants.add(memory, did=did, keys=keys, project_id=project_id, handle=handle,
                           rotations=card.get("rotations", []) if card_file else [])
    emit(result, as_json, lambda r: None)


@covenant_cmd.command(name="list")
@json_option
@pass_memory
def covenant_list(memory, as_json):
    """List the covenants with their status.

    Example:

    \b
        souveraine covenant
    """
    from souveraine.identity import covenants

    found = [c.to_dict() for c in covenants.all_covenants(memory)]
    emit(found, as_json, lambda rows: "\n".join(f"{r['handle']}\t{r['status']}\t{r['did']}\t{r['project_id']}" for r in rows))


@covenant_cmd.command(name="revoke")
@click.argument("handle")
@json_option
@pass_memory
def covenant_revoke(memory, handle, as_json):
    """Revoke a covenant: its past attestations still verify, it witnesses nothing new.

    Example:

    \b
        souveraine covenant revoke bea
    """
    from souveraine.identity import covenants

    emit(covenants.revoke(memory, handle), as_json, lambda r: None)


@click.group(name="witness")
def witness_cmd():
    """The witness's side: sign another project's memory with your own key.

    Example:

    \b
        souveraine witness sign --memory-id 0f3c… --tier constitutive --content-sha256 9b1e…
    """


@witness_cmd.command(name="sign")
@click.option("--memory-id", required=True, help="The full uuid of the memory to witness (in the other project).")
@click.option("--tier", required=True, type=click.Choice(["foundational", "constitutive"]), help="The tier you witness.")
@click.option("--content-sha256", "content_sha256", default="", help="The memory's content_sha256, as its owner sent it.")
@click.option("--text", "text_file", metavar="FILE", default=None,
              help="The memory's text as you read it ('-' reads stdin): its hash must be --content-sha256 (or becomes it).")
@click.option("--subject", default="", metavar="DID", help="The DID of the identity whose memory it is (named in your seal).")
@click.option("--identity", "handle", default=None, help="Your identity that signs (default: this memory's).")
@click.option("--grant", "source_grant_id", default="", metavar="ID",
              help="A paid grant's id: you sign a memory-witness-issue/v1 receipt the owner can neither strip nor forget.")
@click.option("--no-seal", "no_seal", is_flag=True, help="A dry run: print the attestation, commit no seal.")
@json_option
@pass_memory
def witness_sign(memory, memory_id, tier, content_sha256, text_file, subject, handle, source_grant_id, no_seal, as_json):
    """Sign an attestation and seal it on your own chronicle; prints the attestation (JSON).

    Run it in YOUR memory with YOUR key; hand the JSON to the memory's owner, who passes it
    to 'elevate --attestation FILE' or 'attest --attestation FILE'. The seal (on your
    chronicle) and the owner's recognition (on theirs) name the same attestation_id.
    A memory of this memory's own is refused: no one witnesses themselves.

    Example:

    \b
        souveraine witness sign --memory-id 0f3c… --tier constitutive --text memory.txt \\
            --content-sha256 9b1e… --subject did:key:z6Mk… > att.json
    """
    from souveraine.errors import UsageError
    from souveraine.identity import witness

    text = None
    if text_file:
        from souveraine.store import given

        text = given.read_or_stdin(text_file, "the text")
    if not content_sha256 and text is None:
        raise UsageError("give --content-sha256 (as the owner sent it) or --text FILE (the text you read), or both")
    attestation = witness.sign(memory, memory_id=memory_id, tier=tier, content_sha256=content_sha256,
                               handle=handle, source_grant_id=source_grant_id, text=text, subject=subject,
                               seal=not no_seal)
    emit(attestation, True)


@witness_cmd.command(name="verify")
@click.argument("attestation_file", metavar="FILE")
@click.option("--text", "text_file", metavar="FILE", default=None, help="The memory's text, to check its hash too.")
@json_option
def witness_verify(attestation_file, text_file, as_json):
    """Check an attestation on its own: its signature by its attester's did:key, its context and receipt.

    A did:key is its key, so no covenant and no memory is needed. Exit 1 when it does not hold.

    Example:

        souveraine witness verify att.json --text memory.txt
    """
    from souveraine.cli.memories import _attestations
    from souveraine.identity import witness

    text = None
    if text_file:
        from souveraine.store import given

        text = given.read(text_file, "the text")
    results = [witness.verify_file(a, text) for a in _attestations([attestation_file])]
    emit(results[0] if len(results) == 1 else results, as_json,
         lambda r: "\n".join(f"{x['attestation_id'][:12]}  {'valid' if x['valid'] else 'INVALID'}  {x['attester_did']}"
                             + "".join(f"\n  {p}" for p in x["problems"]) for x in (r if isinstance(r, list) else [r])))
    if not all(r["valid"] for r in results):
        sys.exit(1)


def _render_foundations(view: dict) -> str:
    out = [f"{view['handle']}  {view['did']}  {view['status']}", "", "declared:"]
    out += _expression(view["declared"])
    out += ["", "shaped by (constitutive first, then foundational, in elevation order):"]
    for item in view["shaped_by"]:
        witnesses = ", ".join(item["attesters"]) or "no witness"
        out.append(f"  {item['id'][:8]}  {item['tier']}, elevated {item['elevated'][:10]}, witnessed by {witnesses}  {item['path']}")
        out += [f"      {key}: {json.dumps(value, ensure_ascii=False)}" for key, value in item["patch"].items()]
    if not view["shaped_by"]:
        out.append("  (nothing yet)")
    out += ["", "effective:"] + _expression(view["effective"])
    return "\n".join(out)


def _expression(expression: dict) -> list[str]:
    out = []
    for key in ("register", "walls", "subagents", "wake_text"):
        value = expression.get(key)
        if isinstance(value, list):
            out += [f"  {key}:"] + [f"    - {item}" for item in value] if value else [f"  {key}: -"]
        else:
            lines = str(value or "").splitlines() or ["-"]
            out += [f"  {key}: {lines[0]}"] + [f"    {line}" for line in lines[1:]]
    return out
