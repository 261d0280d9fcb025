"""Tool definitions for any model API, generated from the Click commands so they never drift.

Each leaf command becomes one tool: ``souveraine inbox add`` is ``souveraine_inbox_add``;
its options and arguments become the properties of a JSON schema (a flag is a boolean, a
choice an enum, a repeatable option an array, an integer range an integer with bounds).
``argv(name, arguments)`` turns a model's tool call back into the command line, so a loop
around any model runs ``souveraine <argv> --json`` and hands the output back.

This module reads Click objects but imports no click: the CLI passes its commands in.
"""

import inspect
from dataclasses import dataclass

from souveraine.errors import UsageError

PREFIX = "souveraine_"
# Not tools for an agent: the git hooks, the long-running servers, the wiring itself, and
# init (an agent works in its memory; making one is its person's choice).
EXCLUDED = {"hook", "mcp", "tools", "integrate", "schedule run", "init"}
# Parameters every tool shares through the runner, or that make no sense in a tool call.
SHARED = {"memory_path", "as_json", "debug", "help"}
SKIPPED = {"persist": {"claude_code"}, "events": {"follow", "interval"}}
DESCRIPTION_LIMIT = 1024        # OpenAI's limit on a function's description
FORMATS = ("openai", "anthropic")


@dataclass
class Tool:
    name: str
    path: tuple[str, ...]           # ("inbox", "add")
    description: str
    properties: dict[str, dict]
    required: list[str]
    params: dict[str, object]       # property name -> the click parameter

    @property
    def schema(self) -> dict:
        schema = {"type": "object", "properties": self.properties, "additionalProperties": False}
        if self.required:
            schema["required"] = self.required
        return schema

    def render(self, format: str) -> dict:
        if format == "openai":
            return {"type": "function",
                    "function": {"name": self.name, "description": self.description, "parameters": self.schema}}
        if format == "anthropic":
            return {"name": self.name, "description": self.description, "input_schema": self.schema}
        raise UsageError(f"unknown format '{format}'; use one of: {', '.join(FORMATS)}")


def tools(commands) -> list[Tool]:
    """A Tool for each ``(path, command)`` (the CLI's leaf commands) an agent may call."""
    return [tool_of(path, command) for path, command in commands if not excluded(path)]


def excluded(path: tuple[str, ...]) -> bool:
    return any(" ".join(path[:n]) in EXCLUDED for n in range(1, len(path) + 1))


def definitions(commands, format: str = "openai") -> list[dict]:
    return [tool.render(format) for tool in tools(commands)]


def tool_of(path: tuple[str, ...], command) -> Tool:
    skipped = SKIPPED.get(" ".join(path), set())
    properties, required, params = {}, [], {}
    for param in command.params:
        if param.name in SHARED or param.name in skipped:
            continue
        name = property_name(param)
        properties[name] = schema_of(param)
        params[name] = param
        if param.required:
            required.append(name)
    return Tool(PREFIX + "_".join(p.replace("-", "_") for p in path), path, describe(command),
                properties, required, params)


def property_name(param) -> str:
    if param.param_type_name == "argument":
        return param.name
    longest = max(param.opts, key=len)
    return longest.lstrip("-").replace("-", "_")


def schema_of(param) -> dict:
    item = _type_schema(param)
    if param.param_type_name == "option" and param.is_flag and not param.secondary_opts:
        item = {"type": "boolean"}
    many = param.nargs == -1 or getattr(param, "multiple", False)
    schema = {"type": "array", "items": item} if many else dict(item)
    help_text = getattr(param, "help", None) or (param.metavar or param.name).lower()
    schema["description"] = help_text
    default = param.default
    if not many and not callable(default) and isinstance(default, (str, int, float)) and default not in ("", False):
        schema["default"] = default
    return schema


def _type_schema(param) -> dict:
    kind = param.type
    name = getattr(kind, "name", "")
    if hasattr(kind, "choices"):
        return {"type": "string", "enum": [str(c) for c in kind.choices]}
    if name in ("integer", "integer range"):
        schema = {"type": "integer"}
        for key, bound in (("minimum", getattr(kind, "min", None)), ("maximum", getattr(kind, "max", None))):
            if bound is not None:
                schema[key] = bound
        return schema
    if name in ("float", "float range"):
        return {"type": "number"}
    if name == "boolean":
        return {"type": "boolean"}
    return {"type": "string"}


def describe(command) -> str:
    """The command's help, its paragraphs kept whole while they fit the limit."""
    text = inspect.cleandoc(command.help or "").replace("\b\n", "")
    kept = []
    for paragraph in text.split("\n\n"):
        if len("\n\n".join([*kept, paragraph])) > DESCRIPTION_LIMIT:
            break
        kept.append(paragraph)
    return "\n\n".join(kept) or command.get_short_help_str(DESCRIPTION_LIMIT)


def find(commands, name: str) -> Tool:
    for tool in tools(commands):
        if tool.name == name:
            return tool
    raise UsageError(f"no tool named '{name}'; 'souveraine tools' lists them")


def argv(tool: Tool, arguments: dict, extra: tuple[str, ...] = ()) -> list[str]:
    """The command line for a call of ``tool`` with ``arguments``: options (then ``extra``), ``--``, arguments."""
    if not isinstance(arguments, dict):
        raise UsageError(f"the arguments of {tool.name} must be a JSON object")
    unknown = sorted(set(arguments) - set(tool.params))
    if unknown:
        raise UsageError(f"{tool.name} takes no '{unknown[0]}'; it takes: {', '.join(tool.params) or 'nothing'}")
    options: list[str] = []
    positional: list[str] = []
    for name, param in tool.params.items():
        if name not in arguments or arguments[name] is None:
            continue
        value = arguments[name]
        if param.param_type_name == "argument":
            positional += [str(v) for v in value] if isinstance(value, list) else [str(value)]
        else:
            options += _option_args(param, value)
    return [*tool.path, *options, *extra, *(["--", *positional] if positional else [])]


def _option_args(param, value) -> list[str]:
    flag = max(param.opts, key=len)
    if param.is_flag:
        if param.secondary_opts:
            return [flag] if value else [param.secondary_opts[0]]
        return [flag] if value else []
    values = value if isinstance(value, list) else [value]
    return [part for v in values for part in (flag, _text(v))]


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
