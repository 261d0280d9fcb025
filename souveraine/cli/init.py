"""`souveraine init`."""

from pathlib import Path

import click

from souveraine.cli.common import emit, json_option, say


@click.command(name="init")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--identity", default="", metavar="NAME", help="The agent's identity handle, recorded in souveraine.toml.")
@click.option("--name", default="", help="A human name for the memory (default: the folder's name).")
@click.option("--adopt", is_flag=True, help="Add the layout around an existing Markdown or Obsidian vault, changing no note.")
@click.option("--force", is_flag=True, help="On an existing memory: restore missing layout files and hooks (never overwrites).")
@click.option("--from-project", "from_project", metavar="REPO", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Describe the code repository REPO in system/project/ (languages, layout, commit conventions), as a second commit.")
@json_option
def init_cmd(path, identity, name, adopt, force, from_project, as_json):
    """Make a new memory: the layout, a config, the hooks, one commit.

    PATH defaults to the current folder. An existing memory is left unchanged.
    Ends with a smoke test: the new memory's status. --from-project REPO adds a
    second commit describing that code repository in system/project/.

    Example:

    \b
        souveraine init ~/memory --identity ada --from-project ~/code/app
    """
    from souveraine.bootstrap import init
    from souveraine.status import status
    from souveraine.store.memory import Memory

    scanned = None
    if from_project is not None:
        from souveraine.care import fromproject

        scanned = fromproject.scan(from_project)
    result = init(path or Path.cwd(), identity=identity, adopt=adopt, force=force, name=name)
    data = result.to_dict()
    if scanned is not None:
        data["from_project"] = fromproject.write(Memory(result.root), scanned)
        say(f"described the project {scanned['name']} in system/project/")
    if not result.created and not force and scanned is None:
        say(f"{result.root} is already a memory; nothing changed")
    data["status"] = status(Memory(result.root), "medium")
    if as_json:
        emit(data, True)
        return
    if result.created:
        verb = "adopted" if result.adopted else "created"
        say(f"{verb} memory at {result.root} ({len(result.written)} files, hooks: {', '.join(result.hooks)})")
    elif force:
        say(f"restored {len(result.written)} missing files and the hooks" if result.written else "nothing was missing; hooks reinstalled")
    from souveraine.cli.status import render

    emit(data["status"], False, render)
