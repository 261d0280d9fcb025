"""The command line: Click commands only, each a thin layer over one library function.

Commands load lazily, so `souveraine persist` pays only for what persist imports, and the
Click root (cli/root.py) itself loads only when needed: a plain `souveraine recall` runs
without Click at all (cli/lean.py), and so does a plain `souveraine persist`
(cli/lean_persist.py).
"""

import sys

# command name -> module in souveraine.cli defining ``<name>_cmd`` ('-' read as '_')
COMMANDS = {
    "init": "init", "status": "status",
    "hook": "laws", "verify": "laws",
    "identity": "identity", "covenant": "identity", "witness": "identity",
    "remember": "memories", "elevate": "memories", "attest": "memories", "attest-bytes": "memories",
    "why": "memories", "forget": "memories", "visibility": "memories",
    "persist": "persist", "surface": "inbox", "inbox": "inbox", "ledger": "ledger",
    "wake": "wake",
    "recall": "recall", "index": "recall", "serve": "recall",
    "reflect": "reflect", "archive": "archive", "model": "reflect",
    "doctor": "care", "defrag": "care", "digest": "care", "learnings": "rhythm", "refresh": "rhythm",
    "schedule": "schedule",
    "fork": "forks", "state": "forks", "unit": "forks", "triage": "forks",
    "mcp": "agents", "tools": "agents", "integrate": "agents", "events": "agents",
    "sync": "sync",
}


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    from souveraine.cli import lean

    if lean.run(args):
        return
    from souveraine.cli import lean_persist

    if not lean_persist.run(args):
        from souveraine.cli.root import cli

        cli.main(args=args, prog_name="souveraine")


def __getattr__(name: str):
    """``from souveraine.cli import cli``: the Click root, loaded on first use."""
    if name in ("cli", "LazyGroup"):
        from souveraine.cli import root

        return getattr(root, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
