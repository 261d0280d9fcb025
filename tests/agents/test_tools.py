import json

import click
import pytest

from souveraine.agents import tooldefs
from souveraine.cli import cli
from souveraine.cli.agents import _leaves
from souveraine.tempos import inbox
from tests.support import assert_clean

LEAVES = _leaves()
TOOLS = tooldefs.tools(LEAVES)


def by_name(name: str) -> tooldefs.Tool:
    return next(tool for tool in TOOLS if tool.name == name)


def test_every_command_an_agent_may_call_is_a_tool():
    names = {tool.name for tool in TOOLS}
    assert {"souveraine_persist", "souveraine_surface", "souveraine_recall", "souveraine_reflect",
            "souveraine_archive", "souveraine_doctor", "souveraine_status", "souveraine_inbox_add",
            "souveraine_events"} <= names
    assert not any(n.startswith(("souveraine_hook", "souveraine_mcp", "souveraine_integrate")) for n in names)
    assert "souveraine_schedule_run" not in names and "souveraine_init" not in names


@pytest.mark.parametrize("path, command", [leaf for leaf in LEAVES if not tooldefs.excluded(leaf[0])],
                         ids=[" ".join(p) for p, _ in LEAVES if not tooldefs.excluded(p)])
def test_definitions_match_the_commands_params(path, command):
    tool = tooldefs.tool_of(path, command)
    skipped = tooldefs.SHARED | tooldefs.SKIPPED.get(" ".join(path), set())
    params = [p for p in command.params if p.name not in skipped]
    assert list(tool.properties) == [tooldefs.property_name(p) for p in params]
    assert tool.required == [tooldefs.property_name(p) for p in params if p.required]
    for param in params:
        schema = tool.properties[tooldefs.property_name(param)]
        item = schema["items"] if param.nargs == -1 or getattr(param, "multiple", False) else schema
        if isinstance(param.type, click.Choice):
            assert item["enum"] == list(param.type.choices)
        elif isinstance(param, click.Option) and param.is_flag:
            assert item["type"] == "boolean"
        elif isinstance(param.type, (click.types.IntParamType, click.IntRange)):
            assert item["type"] == "integer"
        elif isinstance(param.type, (click.types.FloatParamType, click.FloatRange)):
            assert item["type"] == "number"
        else:
            assert item["type"] == "string"
        if isinstance(param, click.Option):
            assert schema["description"] == param.help


def test_recall_in_both_formats():
    recall = by_name("souveraine_recall")
    openai = recall.render("openai")
    anthropic = recall.render("anthropic")
    assert openai["type"] == "function" and openai["function"]["name"] == "souveraine_recall"
    assert openai["function"]["parameters"] == anthropic["input_schema"] == recall.schema
    assert anthropic["description"].startswith("Find what the memory holds")
    props = recall.schema["properties"]
    assert props["words"]["type"] == "array"
    assert props["limit"] == {"type": "integer", "minimum": 1, "maximum": 1000,
                              "description": "How many hits.", "default": 10}
    assert props["tier"]["enum"] == ["episodic", "foundational", "constitutive"]
    assert recall.schema["additionalProperties"] is False


def test_a_call_becomes_the_command_line():
    assert tooldefs.argv(by_name("souveraine_recall"), {"words": ["-plumber", "friday"], "limit": 3, "private": True,
                                                        "no_recency": False}, ("--json",)) == \
        ["recall", "--limit", "3", "--private", "--json", "--", "-plumber", "friday"]
    assert tooldefs.argv(by_name("souveraine_persist"), {"assistant": "ok", "n1": False}) == \
        ["persist", "--assistant", "ok", "--no-n1"]


def test_tools_prints_json_definitions(runner):
    done = runner.invoke(cli, ["tools", "--format", "anthropic"])
    assert done.exit_code == 0
    data = json.loads(done.output)
    assert [t["name"] for t in data] == [t.name for t in TOOLS]
    assert all(set(t) == {"name", "description", "input_schema"} for t in data)


def test_tools_call_runs_the_command(invoke, memory):
    done = invoke("tools", "--call", "souveraine_inbox_add", input=json.dumps({"text": "Call Lea", "urgency": "high"}))
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["text"] == "Call Lea"
    assert [i.text for i in inbox.read(memory, inbox.PENDING).items] == ["Call Lea"]
    assert_clean(memory.root)


@pytest.mark.parametrize("name, arguments, message", [
    ("souveraine_nope", "{}", "no tool named 'souveraine_nope'; 'souveraine tools' lists them"),
    ("souveraine_inbox_add", '{"txt": "x"}', "souveraine_inbox_add takes no 'txt'; it takes: text, urgency"),
    ("souveraine_inbox_add", "[1", "the arguments of souveraine_inbox_add on stdin are not JSON; give an object like {}"),
])
def test_a_bad_call_is_a_usage_error(runner, name, arguments, message):
    done = runner.invoke(cli, ["tools", "--call", name], input=arguments)
    assert done.exit_code == 2
    assert done.output.strip().endswith(message)
