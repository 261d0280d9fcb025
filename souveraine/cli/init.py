"""`souveraine init`."""

from pathlib import Path

import click

from souveraine.cli.common import emit, json_option, say


@click.command(name="init")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--identity", default="", metavar="NAME", help="The agent's identity handle, recorded in souveraine.toml.")
@click.option("--name", default="", help="A human name for the memory (default: the folder's name).")
@click.option("--adopt", is_flag=True, help="Add the layout around an existing Markdown or Obsidian vault, changing no note; refused, naming the files, when it holds private key material.")
@click.option("--force", is_flag=True, help="On an existing memory: restore missing layout files and hooks (never overwrites).")
@click.option("--from-project", "from_project", metavar="REPO", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Describe the code repository REPO in system/project/ (languages, layout, commit conventions), as a second commit.")
@click.option("--verbose", "-v", is_flag=True, help="Say what was made and the smoke test's verdict (quiet on success otherwise).")
@json_option
def init_cmd(path, identity, name, adopt, force, from_project, verbose, as_json):
    """Make a new memory: the layout, a config, the hooks, the skills, one commit.

    PATH defaults to the current folder. An existing memory is left unchanged
    (--force restores what is missing). Ends with the constitution's smoke test:
    triage routes "Where are we?" to STATUS and the state file answers it. Quiet on
    success; --verbose (or --json) reports what was made and the verdict, and a
    failed smoke test exits 1 naming the problem. --from-project REPO adds a second
    commit describing that code repository in system/project/.

    Example:

    \b
        souveraine init ~/memory --identity ada --from-project ~/code/app
    """
    from souveraine.bootstrap import init
    from souveraine.errors import Refused
    from souveraine.smoke import smoke_test
    from souveraine.store.memory import Memory

    scanned = None
    if from_project is not None:
        from souveraine.care import fromproject

        scanned = fromproject.scan(from_project)
    result = init(path or Path.cwd(), identity=identity, adopt=adopt, force=force, name=name)
    data = result.to_dict()
    if scanned is not None:
        data["from_project"] = fromproject.write(Memory(result.root), scanned)
        say(f"described the project {scanned['name']} in system/project/", quiet=not verbose)
    if not result.created and not force and scanned is None:
        say(f"{result.root} is already a memory; nothing changed")
    data["smoke_test"] = verdict = smoke_test(Memory(result.root))
    if not verdict["ok"]:
        raise Refused(f"the memory at {result.root} is made, but its smoke test failed: {verdict['problems'][0]}",
                      code="smoke_test_failed")
    if as_json:
        emit(data, True)
        return
    if result.created:
        verb = "adopted" if result.adopted else "created"
        say(f"{verb} memory at {result.root} ({len(result.written)} files, hooks: {', '.join(result.hooks)})", quiet=not verbose)
    elif force:
        say(f"restored {len(result.written)} missing files and the hooks" if result.written else "nothing was missing; hooks reinstalled",
            quiet=not verbose)
    say(f"smoke test passed: triage routed '{verdict['query']}' to {verdict['category']}; the state answers: "
        f"{verdict['answer']}", quiet=not verbose)
