"""`souveraine tools`: one definition per tool, shared with the MCP server; the core by default."""

import json
import re

import click
import pytest

from souveraine.agents import tooldefs
from souveraine.cli import cli
from souveraine.cli.reference import walk
from souveraine.tempos import inbox
from tests.support import assert_clean

COMMANDS = {full[len("souveraine "):]: command for full, command in walk(cli, click.Context(cli, info_name="souveraine"))}
MIRRORS = [tool for tool in tooldefs.TOOLS if tool.cli]


def test_the_default_is_the_core_five_and_small(runner):
    done = runner.invoke(cli, ["tools"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert [t["function"]["name"] for t in data] == [f"souveraine_{n}" for n in
                                                     ("wake", "surface", "persist", "recall", "remember")]
    assert len(json.dumps(data)) < 8000, "the core fits a tight budget (~2k tokens)"
    every = json.loads(runner.invoke(cli, ["tools", "--all", "--format", "anthropic"]).output)
    assert [t["name"] for t in every] == [f"souveraine_{t.name}" for t in tooldefs.TOOLS]
    assert all(set(t) == {"name", "description", "input_schema"} for t in every)


def test_only_picks_tools_by_name_with_or_without_the_prefix(runner):
    done = runner.invoke(cli, ["tools", "--only", "recall,souveraine_read_note", "--only", "build_context"])
    assert [t["function"]["name"] for t in json.loads(done.output)] == [
        "souveraine_recall", "souveraine_read_note", "souveraine_build_context"]
    bad = runner.invoke(cli, ["tools", "--only", "recal"])
    assert bad.exit_code == 2 and "no tool named 'recal'; the tools are: wake, surface" in bad.stderr


@pytest.mark.parametrize("tool", tooldefs.TOOLS, ids=[t.name for t in tooldefs.TOOLS])
def test_every_parameter_is_described_in_words_a_model_can_act_on(tool):
    assert tool.description and tool.returns and tool.title
    for param in tool.params:
        words = re.findall(r"[a-z]+", param.description.lower())
        assert len(words) >= 4, f"{tool.name}.{param.name}: '{param.description}'"
        assert set(words) - set(param.name.split("_")), f"{tool.name}.{param.name} is described by its own name"
    assert len(tool.text) <= tooldefs.DESCRIPTION_LIMIT


def test_persist_needs_the_answer_and_recall_takes_a_query():
    persist, recall = tooldefs.BY_NAME["persist"], tooldefs.BY_NAME["recall"]
    assert persist.schema["required"] == ["assistant"]
    props = recall.schema["properties"]
    assert "query" in props and "within" in props and "words" not in props and "in" not in props
    assert props["limit"] == {"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many hits to return.",
                              "default": 10}
    assert recall.schema["additionalProperties"] is False


@pytest.mark.parametrize("tool", MIRRORS, ids=[t.name for t in MIRRORS])
def test_a_tool_follows_the_options_of_the_command_it_mirrors(tool):
    """When the command gains an option (recall's --context, say), its tool must take it or say why not."""
    command = COMMANDS[tool.cli]
    options = {p.name for p in command.params} - {"memory_path", "as_json", "help"}
    followed = {(p.cli if p.cli != "" else p.name) for p in tool.params if p.cli is not None}
    assert followed <= options, f"{tool.name} follows options {tool.cli} does not have: {followed - options}"
    assert options - followed - set(tool.omits) == set(), f"{tool.cli}'s options missing from {tool.name}"
    for param in tool.params:
        cli_param = next((p for p in command.params if p.name == (param.cli or param.name)), None)
        if cli_param is not None and isinstance(cli_param.type, click.Choice) and "enum" in param.schema:
            assert param.schema["enum"] == [c for c in cli_param.type.choices if c in param.schema["enum"]]


def test_tools_call_runs_the_library_and_prints_its_json(invoke, memory):
    done = invoke("tools", "--call", "souveraine_inbox_add", input=json.dumps({"text": "Call Lea", "urgency": "high"}))
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["text"] == "Call Lea"
    assert [i.text for i in inbox.read(memory, inbox.PENDING).items] == ["Call Lea"]
    listed = json.loads(invoke("tools", "--call", "inbox", input="{}").output)
    assert [item["text"] for item in listed["items"]] == ["Call Lea"]
    assert_clean(memory.root)


def test_the_same_result_as_the_mcp_tool(invoke, memory):
    invoke("remember", "Lea likes green tea.")
    done = invoke("tools", "--call", "recall", input=json.dumps({"query": "green tea", "limit": 3}))
    result = json.loads(done.output)
    assert set(result) == {"hits", "dates"} and result["hits"][0]["path"].startswith("memories/")


@pytest.mark.parametrize("name, arguments, message", [
    ("souveraine_nope", "{}", "no tool named 'nope'; the tools are: wake"),
    ("inbox_add", '{"txt": "x"}', "inbox_add takes no 'txt'; it takes: text, urgency"),
    ("inbox_add", "[1", "the arguments of inbox_add on stdin are not JSON; give an object like {}"),
    ("inbox_add", '{"text": "x", "urgency": "now"}', "inbox_add: 'urgency' must be one of low, medium, high, critical"),
    ("recall", '{"query": "x", "limit": 0}', "recall: 'limit' must be between 1 and 1000, not 0"),
    ("persist", '{"user": "hi"}', "persist needs 'assistant': Your answer, word for word."),
])
def test_a_bad_call_is_a_usage_error(invoke, name, arguments, message):
    done = invoke("tools", "--call", name, input=arguments)
    assert done.exit_code == 2
    assert message in done.stderr
