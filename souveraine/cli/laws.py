"""`souveraine hook …` and `souveraine verify`: the laws, from git's hooks and by hand."""

import sys

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory, progress, say


@click.group(name="hook", cls=DefaultGroup, default="list")
def hook_cmd():
    """The git hooks that keep the memory's laws: install them, or run one by hand.

    Git runs them on every commit (and the remote's guard on every push);
    `souveraine hook` alone lists which are installed.

    Example:

    \b
        souveraine hook install && souveraine hook pre-commit
    """


@hook_cmd.command(name="list")
@pass_memory
@json_option
def hook_list(memory, as_json):
    """List the memory's hooks and whether each is installed.

    Example:

    \b
        souveraine hook list --json
    """
    from souveraine.laws import install

    found = install.installed(memory.root)
    rows = [{"hook": name, "installed": ok} for name, ok in found.items()]
    emit(rows, as_json, lambda rows: "\n".join(f"{r['hook']}: {'installed' if r['installed'] else 'MISSING'}" for r in rows))
    if not all(found.values()):
        say("some hooks are missing; run 'souveraine hook install'")


@hook_cmd.command(name="install")
@click.option("--bare", "bare", metavar="PATH", default=None,
              help="Guard a bare repository used as the shared remote (a pre-receive hook) instead.")
@click.option("--memory", "memory_path", metavar="PATH", default=None,
              help="The memory to install into (default: $SOUVERAINE_MEMORY, else the nearest souveraine.toml above).")
@json_option
@click.pass_context
def hook_install(ctx, bare, memory_path, as_json):
    """Install (or reinstall) the hooks and the merge driver, recording this interpreter's path.

    .gitattributes is brought up to date too (and committed when it changes): every
    append-only path merges with the driver, which keeps both sides' entries (docs/SYNC.md).

    With --bare PATH, install the remote's guard into a bare repository instead:
    every pushed commit is judged by the same laws and no branch may be rewritten.

    Example:

    \b
        souveraine hook install
        souveraine hook install --bare /srv/git/memory.git
    """
    from pathlib import Path

    from souveraine.laws import install

    if bare:
        names, where = install.install_bare(Path(bare)), Path(bare).resolve()
    else:
        from souveraine.store.memory import Memory

        from souveraine.sync import attributes

        memory = Memory.find(memory_path or (ctx.find_root().obj or {}).get("memory_path"))
        names, where = install.install(memory.root), install.hooks_dir(memory.root)
        attributes.ensure(memory)
    emit({"hooks": names, "path": str(where)}, as_json, lambda _: None)
    if not as_json:
        say(f"installed {', '.join(names)} in {where}")


HOOKS = {  # name: (what it does, an example's arguments)
    "pre-commit": ("Judge the staged changes by the laws, as git does before a commit.", ""),
    "commit-msg": ("Judge a commit message file (and a refactor's moves), as git does.", " .git/COMMIT_EDITMSG"),
    "post-commit": ("Bring the search index and the events up to date after a commit.", ""),
    "pre-merge-commit": ("Judge a merge git commits by itself (git merge, git pull) by the laws.", ""),
    "post-merge": ("Bring the search index and the events up to date after a merge or a pull.", ""),
    "reference-transaction": ("Judge an amended commit by its real parent before the branch moves to it.",
                              " prepared < updates.txt"),
    "pre-receive": ("Judge a push, as the guarded remote does: '<old> <new> <ref>' lines on stdin.",
                    " < updates.txt"),
}


def _hook(name: str):
    """A subcommand running one git hook exactly as git would: exit 1 with the refusals on stderr."""

    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def run(args):
        from souveraine.laws import hooks

        sys.exit(hooks.main([name, *args]))

    summary, example = HOOKS[name]
    run.__doc__ = f"""{summary}

    Exit 1 with one line per refusal on stderr. Git runs it; run it by hand to see why.

    Example:

    \b
        souveraine hook {name}{example}
    """
    return hook_cmd.command(name=name, context_settings={"ignore_unknown_options": True})(run)


for _name in HOOKS:
    _hook(_name)


@click.command(name="verify")
@click.option("--since", metavar="REV", default=None, help="Only the commits after REV (e.g. a tag, or HEAD~50).")
@click.option("--at", "at_rev", metavar="REV", default=None,
              help="Only re-check every witness as it stands at REV (e.g. HEAD): signatures, covenants, identities.")
@click.option("--full", is_flag=True, help="Judge every commit again, ignoring the record of earlier runs.")
@pass_memory
@json_option
def verify_cmd(memory, since, at_rev, full, as_json):
    """Replay the history commit by commit and list every breach of the laws.

    Each commit is judged against its parents by the hooks' rules: append-only files,
    commit messages, key material, frontmatter, witnesses. Then every witnessed memory,
    covenant and identity is re-checked as it stands at HEAD (no private key needed).
    What an earlier run judged is on record (.souveraine/verified.json, kept while its
    commit is an ancestor of HEAD): only the commits since are judged, and the witness is
    re-checked only when its files changed; --full judges everything again.
    With --at REV, only that re-check, at REV: fast enough to run often. Exit 1 if any breach.

    Example:

    \b
        souveraine verify --since v1 --json
        souveraine verify --at HEAD
    """
    from souveraine.errors import UsageError
    from souveraine.laws import verify

    if since and at_rev:
        raise UsageError("give --since or --at, not both")
    if at_rev:
        report = verify.at(memory, at_rev, progress=progress("re-checking witnesses", not as_json))
    else:
        report = verify.verify(memory, since, progress=progress("verifying", not as_json), full=full)
    emit([b.to_dict() for b in report.breaches], as_json, _render)
    count = len(report.breaches)
    judged = (f" ({report.judged} judged, {report.commits - report.judged} on record)"
              if report.judged < report.commits else "")
    what = [f"{report.commits} commits{judged}"] if not at_rev else []
    if at_rev or report.witnessed:
        what.append(f"{report.witnessed} witnessed memor{'y' if report.witnessed == 1 else 'ies'}")
    say(f"{' and '.join(what)} verified, {count or 'no'} breach{'es' if count != 1 else ''}", quiet=as_json)
    if report.breaches:
        sys.exit(1)


def _render(rows: list[dict]) -> str:
    return "\n".join(f"{(r['commit'] or 'staged')[:12]}  {r['rule']}  {r['message']}" for r in rows)
