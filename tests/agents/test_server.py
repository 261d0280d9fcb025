import json
import sys

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from souveraine.agents import server  # noqa: E402
from souveraine.identity import memories  # noqa: E402
from souveraine.tempos import inbox  # noqa: E402
from tests.support import ROOT, assert_clean  # noqa: E402

TOOLS = ["wake", "persist", "surface", "recall", "remember", "elevate", "reflect", "archive", "doctor", "status"]


def run(scenario, target):
    async def main():
        async with Client(target) as client:
            return await scenario(client)

    return anyio.run(main)


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_every_tool_is_listed_with_its_schema(memory):
    async def scenario(client):
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run(scenario, server.build(memory.root))}
    assert sorted(tools) == sorted(TOOLS)
    assert tools["persist"].input_schema["required"] == ["assistant"]
    assert tools["surface"].input_schema["properties"]["bandwidth"]["enum"] == ["high", "medium", "low", "minimal"]
    assert tools["elevate"].input_schema["properties"]["tier"]["enum"] == ["foundational", "constitutive"]
    elevate = json.dumps(tools["elevate"].input_schema).lower()
    assert "attestations" in elevate and "private" not in elevate and "secret" not in elevate
    assert all(tool.description for tool in tools.values())


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
    params = StdioServerParameters(command=sys.executable,
                                   args=[str(ROOT / "bin" / "souveraine"), "--memory", str(memory.root), "mcp"])

    async def scenario(client):
        names = [tool.name for tool in (await client.list_tools()).tools]
        kept = data(await client.call_tool("remember", {"text": "Lea likes green tea."}))   # a commit, hooks and all
        status = data(await client.call_tool("status", {"bandwidth": "low"}))
        note = await client.read_resource("memory://notes/system/persona/identity.md")
        return names, kept, status, note.contents[0].text

    names, kept, status, text = run(scenario, params)
    assert sorted(names) == sorted(TOOLS)
    assert memory.exists(kept["path"])
    assert status["phase"] == "idle"
    assert text == memory.read_text("system/persona/identity.md")


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
