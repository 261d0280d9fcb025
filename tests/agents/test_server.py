import json
import os
import sys

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from souveraine.agents import server  # noqa: E402
from souveraine.identity import memories  # noqa: E402
from souveraine.tempos import inbox  # noqa: E402
from tests.support import ROOT, assert_clean  # noqa: E402

from souveraine.agents import tooldefs  # noqa: E402

TOOLS = [tool.name for tool in tooldefs.TOOLS]


def run(scenario, target):
    async def main():
        async with Client(target) as client:
            return await scenario(client)

    return anyio.run(main)


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_every_tool_is_listed_with_its_one_definition_and_annotations(memory):
    async def scenario(client):
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run(scenario, server.build(memory.root))}
    assert sorted(tools) == sorted(TOOLS) and len(tools) == 27
    for definition in tooldefs.TOOLS:
        listed = tools[definition.name]
        assert listed.input_schema == definition.schema, f"{definition.name}: one definition, not two"
        assert listed.description == definition.text and listed.title == definition.title
        hints = listed.annotations
        assert (hints.title, hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint,
                hints.open_world_hint) == (definition.title, definition.read_only, definition.destructive,
                                           definition.idempotent, False)
    assert tools["recall"].annotations.read_only_hint and tools["forget"].annotations.destructive_hint
    assert tools["persist"].input_schema["required"] == ["assistant"]
    assert tools["surface"].input_schema["properties"]["bandwidth"]["enum"] == ["high", "medium", "low", "minimal"]
    elevate = json.dumps(tools["elevate"].input_schema).lower()
    assert "attestations" in elevate and "private" not in elevate and "secret" not in elevate


def test_every_tool_answers_against_a_memory(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")
    inbox.add(memory, "The deploy key expires Friday", "high")

    async def scenario(client):
        out = {}
        out["persist"] = data(await client.call_tool("persist", {
            "user": "My sister is Lea.", "assistant": "I'll remember that your sister is Lea.", "session": "s1"}))
        out["remember"] = data(await client.call_tool("remember", {"text": "Lea likes green tea.", "identity": "ada"}))
        out["rule"] = data(await client.call_tool("remember", {"text": "I prefer short answers.",
                                                               "to": "system/human/prefs/communication.md"}))
        out["surface"] = data(await client.call_tool("surface", {}))
        out["recall"] = data(await client.call_tool("recall", {"query": "green tea"}))
        out["reflect"] = data(await client.call_tool("reflect", {"force": True}))
        out["archive"] = data(await client.call_tool("archive", {"force": True}))
        out["doctor"] = data(await client.call_tool("doctor", {}))
        out["status"] = data(await client.call_tool("status", {"bandwidth": "high"}))
        out["wake"] = data(await client.call_tool("wake", {"bandwidth": "low"}))
        out["elevate"] = data(await client.call_tool("elevate", {
            "memory_id": out["remember"]["id"], "tier": "foundational", "walls": ["I keep my word"]}))
        plain = data(await client.call_tool("remember", {"text": "Lea's birthday is in May."}))
        out["unwitnessed"] = await client.call_tool("elevate", {"memory_id": plain["id"], "tier": "constitutive"})
        out["bad"] = await client.call_tool("persist", {"assistant": "  "})
        return out

    out = run(scenario, server.build(memory.root))
    assert [t["role"] for t in out["persist"]["turns"]] == ["user", "assistant"]
    assert out["remember"]["path"].startswith("memories/")
    assert out["surface"]["lines"] == ["[surfacing: high: The deploy key expires Friday]"]
    assert out["recall"]["hits"][0]["path"] == out["remember"]["path"]
    assert out["reflect"]["reflected"] is True
    assert out["archive"]["archived"] is True
    assert isinstance(out["doctor"]["findings"], list)
    assert out["status"]["journal"]["turns"] >= 2
    assert out["rule"]["path"] == "system/human/prefs/communication.md"
    assert (out["elevate"]["tier"], out["elevate"]["id"]) == ("foundational", out["remember"]["id"])
    assert "I keep my word" in memory.read_text("system/persona/effective.md")
    assert out["unwitnessed"].is_error
    assert "witness_required: " in out["unwitnessed"].content[0].text
    assert out["wake"]["document"].startswith("# Wake — ada\n\nBandwidth low")
    assert out["bad"].is_error
    assert out["bad"].content[0].text.endswith("usage: the assistant's text is empty; give what the assistant said "
                                               "(--assistant TEXT)")
    assert_clean(memory.root)


def test_a_session_uses_every_tool(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")
    called = set()

    async def scenario(client):
        async def call(name, arguments):
            called.add(name)
            return data(await client.call_tool(name, arguments))

        out = {"wake": await call("wake", {"max_chars": 4000}), "status": await call("status", {})}
        out["persist"] = await call("persist", {"user": "Can you send me the report?", "session": "s1",
                                                "assistant": "I'll send you the report tomorrow.",
                                                "tool_calls": ["Read reports/q3.md"], "message_id": "m1"})
        out["again"] = await call("persist", {"assistant": "I'll send you the report tomorrow.", "session": "s1",
                                              "message_id": "m1"})
        out["surface"] = await call("surface", {"peek": True})
        out["ledger"] = await call("ledger", {"kind": "commitments", "open_only": True})
        out["closed"] = await call("ledger_close", {"entry_id": out["ledger"]["entries"][0]["id"],
                                                    "note": "sent by email"})
        out["queued"] = await call("inbox_add", {"text": "Ask Lea about the trip", "urgency": "low"})
        out["inbox"] = await call("inbox", {})
        out["lea"] = await call("write_note", {"path": "people/lea.md", "description": "Lea, my sister.",
                                               "content": "# Lea\n\nMy sister.\n\n## Contact\n\nunknown\n"})
        out["family"] = await call("write_note", {"path": "domains/family.md", "description": "Family matters.",
                                                  "content": "# Family\n\n- [[people/lea|Lea]] is my sister.\n"})
        for operation, extra in (("replace_section", {"section": "## Contact"}), ("append", {}), ("prepend", {}),
                                 ("find_replace", {"find": "My sister."})):
            await call("edit_note", {"path": "people/lea.md", "operation": operation,
                                     "content": {"append": "She lives in Lisbon.", "prepend": "Older than me.",
                                                 "replace_section": "lea@example.org",
                                                 "find_replace": "My younger sister."}[operation], **extra})
        out["read"] = await call("read_note", {"path": "people/lea.md"})
        out["moved"] = await call("move_note", {"path": "people/lea.md", "to": "people/family/lea.md"})
        out["context"] = await call("build_context", {"path": "domains/family.md", "depth": 1})
        out["listed"] = await call("list_notes", {"folder": "people/family"})
        out["linked"] = await client.call_tool("delete_note", {"path": "people/family/lea.md"})
        await call("write_note", {"path": "reference/scratch.md", "description": "A scratch note.", "content": "x"})
        out["deleted"] = await call("delete_note", {"path": "reference/scratch.md"})
        out["recall"] = await call("recall", {"query": "report", "context": 1})
        kept = await call("remember", {"text": "The trip to Lisbon is in May.", "key": "trip"})
        out["elevate"] = await call("elevate", {"memory_id": kept["id"], "tier": "foundational"})
        out["forget"] = await call("forget", {"key": "trip"})
        out["reflect"] = await call("reflect", {"force": True, "extractive": True})
        out["archive"] = await call("archive", {"dry_run": True, "force": True, "extractive": True})
        out["doctor"] = await call("doctor", {})
        out["recent"] = await call("recent_activity", {"since": "2000-01-01", "limit": 5})
        out["state_set"] = await call("state_set", {"phase": "DEVELOP", "unit": "q3-report",
                                                    "files": ["reports/q3.md", "reports/q3.md"]})
        out["state"] = await call("state", {})
        out["digest"] = await call("digest", {"week": "2026-W49"})
        out["verify"] = await call("verify", {})
        return out

    out = run(scenario, server.build(memory.root))
    assert called == set(TOOLS)
    assert out["wake"]["document"].startswith("# Wake — ada") and len(out["wake"]["document"]) <= 4000
    assert [t["role"] for t in out["persist"]["turns"]] == ["user", "tool", "assistant"]
    assert out["again"]["duplicate"] is True and out["again"]["turns"] == []
    assert out["closed"]["status"] == "closed" and out["inbox"]["items"][-1]["text"] == "Ask Lea about the trip"
    assert out["lea"]["created"] and out["read"]["properties"]["description"] == "Lea, my sister."
    body = out["read"]["body"]
    assert body.startswith("Older than me.\n\n# Lea\n\nMy younger sister.") and "She lives in Lisbon." in body
    assert "## Contact\n\nlea@example.org\n\nShe lives in Lisbon.\n" in body and "unknown" not in body
    assert out["moved"]["links_updated"] == ["domains/family.md"]
    assert "[[people/family/lea|Lea]]" in memory.read_text("domains/family.md")
    assert [n["path"] for n in out["context"]["notes"]] == ["domains/family.md", "people/family/lea.md"]
    assert out["listed"]["notes"] == [{"path": "people/family/lea.md", "description": "Lea, my sister."}]
    assert out["linked"].is_error and out["linked"].content[0].text.startswith(
        "linked: people/family/lea.md is linked from 1 note(s) (domains/family.md)")
    assert memory.exists("people/family/lea.md")
    assert out["deleted"]["deleted"] and not memory.exists("reference/scratch.md")
    assert out["forget"]["forgotten"] and out["doctor"]["checks"] > 0
    assert len(out["recent"]["events"]) == 5 and out["recent"]["more"] > 0
    assert (out["state"]["phase"], out["state"]["unit"], out["state"]["files_touched"]) == (
        "DEVELOP", "q3-report", ["reports/q3.md"])
    assert out["digest"]["week"] == "2026-W49"
    assert out["verify"]["breaches"] == [] and out["verify"]["commits"] > 10
    assert out["recent"]["events"][0]["at"] >= out["recent"]["events"][-1]["at"], "newest first"
    assert_clean(memory.root)


def test_the_laws_judge_every_note_change_and_a_refusal_says_why(memory):
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n"
    head = memory.git("rev-parse", "HEAD").stdout

    async def scenario(client):
        calls = [("write_note", {"path": "people/bob.md", "description": "Bob.", "content": key}),
                 ("write_note", {"path": "journal/2026/11/2026-11-30.md", "description": "x", "content": "x"}),
                 ("edit_note", {"path": "system/metacognition/subconscious.md", "operation": "append", "content": "x"}),
                 ("move_note", {"path": "memories/x.md", "to": "people/x.md"}),
                 ("read_note", {"path": "../secret.md"}),
                 ("edit_note", {"path": "system/persona/identity.md", "operation": "find_replace",
                                "find": "no such words", "content": "x"})]
        return [(await client.call_tool(name, arguments)) for name, arguments in calls]

    results = run(scenario, server.build(memory.root))
    assert all(r.is_error for r in results)
    texts = [r.content[0].text for r in results]
    assert texts[0].startswith("refused: ") and "private key" in texts[0].lower()
    assert texts[1] == "elsewhere: journal/2026/11/2026-11-30.md: the journal is raw experience, append-only: persist adds to it"
    assert texts[2].startswith("elsewhere: system/metacognition/subconscious.md: the inner voice is append-only")
    assert texts[3].startswith("elsewhere: memories/x.md: memories are written by remember")
    assert texts[4].startswith("usage: '../secret.md' is not a path inside the memory")
    assert texts[5].startswith("usage: 'no such words' occurs 0 time(s) in system/persona/identity.md, not 1")
    assert memory.git("rev-parse", "HEAD").stdout == head and not memory.exists("people/bob.md")
    assert_clean(memory.root)


def test_bad_arguments_are_usage_errors_in_one_shape(memory):
    async def scenario(client):
        return [(await client.call_tool(name, arguments)).content[0].text for name, arguments in (
            ("recall", {"query": "x", "limit": 0}), ("wake", {"bandwidth": "loud"}), ("nope", {}))]

    texts = run(scenario, server.build(memory.root))
    assert texts[0] == "usage: recall: 'limit' input should be greater than or equal to 1"
    assert texts[1].startswith("usage: wake: 'bandwidth' input should be 'high', 'medium', 'low' or 'minimal'")
    assert texts[2].startswith("usage: no tool named 'nope'; the tools are: wake, surface")


def test_prompts_for_the_wake_and_a_reflection(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")
    from souveraine.tempos import persist, transcripts

    quiet = None

    async def scenario(client):
        nonlocal quiet
        quiet = (await client.get_prompt("reflection")).messages[0].content.text
        persist.persist(memory, transcripts.Exchange(user="The build broke again.", assistant="Let us look at it."))
        listed = [(p.name, [a.name for a in p.arguments or []]) for p in (await client.list_prompts()).prompts]
        woken = (await client.get_prompt("wake", {"bandwidth": "low"})).messages[0].content.text
        reflection = (await client.get_prompt("reflection")).messages[0].content.text
        return listed, woken, reflection

    listed, woken, reflection = run(scenario, server.build(memory.root))
    assert listed == [("wake", ["bandwidth"]), ("reflection", [])]
    assert "# Wake — ada\n\nBandwidth low" in woken
    assert quiet.startswith("Nothing was said since the last reflection")
    assert "The Fold" in reflection and "The build broke again." in reflection and "^t1432" in reflection


def test_the_resource_list_of_a_year_comes_a_page_at_a_time(year_memory):
    year = year_memory
    async def scenario(client):
        pages, cursor = [], None
        while True:
            page = await client.list_resources(cursor=cursor)
            pages.append(page.resources)
            cursor = page.next_cursor
            if cursor is None:
                break
        try:
            await client.list_resources(cursor="not-a-cursor")
        except Exception as exc:  # noqa: BLE001 — the SDK raises the protocol error
            bad = str(exc)
        return pages, bad

    pages, bad = run(scenario, server.build(year.root))
    uris = [str(r.uri) for page in pages for r in page]
    assert len(pages) > 10 and all(len(page) <= server.PAGE + 1 for page in pages)
    assert len(uris) == len(set(uris)) == len(server.listed_notes(year.root)) + 1 > 3000
    assert uris[0] == "memory://wake" and not any("/journal/" in uri for uri in uris)
    assert all(r.description for r in pages[1] if "/memories/" in str(r.uri))
    assert "not a cursor this server gave" in bad


def test_notes_are_resources(memory):
    memories.remember(memory, "Lea likes green tea.")

    async def scenario(client):
        listed = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        identity = await client.read_resource("memory://notes/system/persona/identity.md")
        wake = await client.read_resource("memory://wake")
        return listed, templates, identity, wake

    listed, templates, identity, wake = run(scenario, server.build(memory.root))
    uris = [str(r.uri) for r in listed]
    assert uris[0] == "memory://wake"
    assert wake.contents[0].text.startswith("# Wake — ada")
    assert "memory://notes/system/persona/identity.md" in uris
    assert any(uri.startswith("memory://notes/memories/") for uri in uris)
    assert not any(uri.startswith(("memory://notes/journal/", "memory://notes/.souveraine")) for uri in uris)
    assert [t.uri_template for t in templates] == ["memory://notes/{+path}"]
    assert identity.contents[0].text == memory.read_text("system/persona/identity.md")
    described = next(r for r in listed if str(r.uri).endswith("system/persona/identity.md"))
    assert described.description and described.mime_type == "text/markdown"


@pytest.mark.parametrize("path", ["../outside.md", "souveraine.toml", ".git/config", "missing.md"])
def test_only_notes_inside_the_memory_are_read(memory, path):
    async def scenario(client):
        try:
            await client.read_resource(f"memory://notes/{path}")
        except Exception as exc:  # noqa: BLE001 — the SDK's error type for a refused read
            return str(exc)
        return None

    assert run(scenario, server.build(memory.root)) is not None


def test_the_server_over_stdio(memory):
    params = StdioServerParameters(command=sys.executable,   # the test's environment: SOUVERAINE_NO_SERVER too
                                   args=[str(ROOT / "bin" / "souveraine"), "--memory", str(memory.root), "mcp"],
                                   env=dict(os.environ))

    async def scenario(client):
        names = [tool.name for tool in (await client.list_tools()).tools]
        kept = data(await client.call_tool("remember", {"text": "Lea likes green tea."}))   # a commit, hooks and all
        note = data(await client.call_tool("write_note", {"path": "people/lea.md", "content": "My sister.",
                                                          "description": "Lea."}))
        refused = await client.call_tool("write_note", {"path": "journal/x.md", "content": "x", "description": "x"})
        assert note["created"] and refused.is_error and refused.content[0].text.startswith("elsewhere: ")
        first = await client.list_resources()
        assert first.next_cursor is None and any(str(r.uri).endswith("people/lea.md") for r in first.resources)
        status = data(await client.call_tool("status", {"bandwidth": "low"}))
        note = await client.read_resource("memory://notes/system/persona/identity.md")
        return names, kept, status, note.contents[0].text

    names, kept, status, text = run(scenario, params)
    assert sorted(names) == sorted(TOOLS)
    assert memory.exists(kept["path"])
    assert memory.read_text("people/lea.md").endswith("\n---\nMy sister.\n"), "a note's last line ends"
    assert status["phase"] == "idle"
    assert text == memory.read_text("system/persona/identity.md")


def test_over_stdio_the_work_tree_is_scanned_before_a_recall_would(memory):
    from souveraine.recall import index
    from tests.recall.conftest import age_scan, edit_out_of_sight

    path = edit_out_of_sight(memory)
    age_scan(memory.root, 10)               # a recall would scan in 10 s; the server's lead is longer
    params = StdioServerParameters(command=sys.executable,   # the test's environment: SOUVERAINE_NO_SERVER too
                                   args=[str(ROOT / "bin" / "souveraine"), "--memory", str(memory.root), "mcp"],
                                   env=dict(os.environ))

    async def scenario(client):
        with anyio.fail_after(20):
            while index.scan_due(memory) < index.SCAN_SECONDS - 60:
                await anyio.sleep(0.05)     # scanned by the server, before any call
        return data(await client.call_tool("recall", {"query": "zeppelin"}))

    hits = [hit["path"] for hit in run(scenario, params)["hits"]]
    assert hits[:1] == [path], "the edit is found by its word (days alike in meaning may follow it)"


def test_without_the_sdk_mcp_says_how_to_install_it(invoke, monkeypatch):
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "souveraine.agents.server")
    monkeypatch.delattr("souveraine.agents.server")
    done = invoke("mcp")
    assert done.exit_code == 1
    assert done.output == ("souveraine: the MCP server needs the mcp package; install it with "
                           "pip install 'souveraine[mcp]'\n")


def test_elevate_takes_a_witness_attestation_as_json(memory, witnesses):
    from souveraine.identity import witness
    from souveraine.store import notes

    kept = memories.remember(memory, "I never share a secret.", identity="ada")
    sha = str(notes.read(memory.path(kept["path"]))["content_sha256"])
    attestation = witness.make(witnesses[0], kept["id"], "constitutive", sha)

    async def scenario(client):
        return data(await client.call_tool("elevate", {"memory_id": kept["id"], "tier": "constitutive",
                                                       "walls": ["I never share a secret"],
                                                       "attestations": [attestation]}))

    result = run(scenario, server.build(memory.root))
    assert (result["tier"], result["attesters"]) == ("constitutive", [witnesses[0].did])
    assert_clean(memory.root)


def test_the_server_keeps_the_index_open_and_finds_what_was_written_between_calls(memory):
    from souveraine.recall import index

    async def scenario(client):
        before = data(await client.call_tool("recall", {"query": "genmaicha"}))
        lent = list(index._kept)
        await client.call_tool("remember", {"text": "Lea brews genmaicha on Sundays."})
        (memory.root / "people" / "lea.md").write_text("Lea drinks genmaicha with toasted rice.\n")   # by hand
        after = data(await client.call_tool("recall", {"query": "genmaicha"}))
        return before, lent, after, list(index._kept)

    before, lent, after, kept = run(scenario, server.build(memory.root))
    assert before["hits"] == [] and len(lent) == 1
    assert {hit["path"].split("/")[0] for hit in after["hits"]} == {"memories", "people"}
    assert kept == lent                                     # the same connection served both


def test_recall_is_one_tool_in_both_places(invoke, memory):
    """The same arguments give the same object over MCP and through `tools --call`."""
    memories.remember(memory, "Lea likes green tea.")
    memories.remember(memory, "Tomás brews green tea in March.")
    arguments = {"query": "green tea in March", "limit": 3, "context": 1}

    async def scenario(client):
        listed = {t.name: t for t in (await client.list_tools()).tools}["recall"]
        return listed.input_schema, data(await client.call_tool("recall", arguments))

    schema, over_mcp = run(scenario, server.build(memory.root))
    called = invoke("tools", "--call", "recall", input=json.dumps(arguments))
    defined = json.loads(invoke("tools", "--only", "recall").output)[0]["function"]["parameters"]
    assert called.exit_code == 0, called.output
    assert json.loads(called.output) == over_mcp and over_mcp["hits"]
    assert defined == schema
