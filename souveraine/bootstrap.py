"""`init`: a new memory from the template, or the layout added around an existing vault."""

import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from souveraine import resources
from souveraine.errors import Refused, UsageError
from souveraine.store import git
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import CONFIG_FILE, Memory

INIT_MESSAGE = "feat(init): bootstrap memory"
ADOPT_MESSAGE = "feat(init): adopt vault as a memory"
REPAIR_MESSAGE = "fix(memory): restore missing layout files"
_HANDLE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass
class InitResult:
    root: Path
    created: bool
    adopted: bool = False
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    commit: str | None = None
    hooks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"memory": str(self.root), "created": self.created, "adopted": self.adopted,
                "written": self.written, "skipped": self.skipped, "commit": self.commit, "hooks": self.hooks}


def init(path: Path, identity: str = "", adopt: bool = False, force: bool = False, name: str = "") -> InitResult:
    """Make a memory at ``path``; an existing memory is left alone (or repaired with ``force``)."""
    root = Path(path).expanduser().resolve()
    if identity and not _HANDLE.match(identity):
        raise UsageError(f"'{identity}' is not a valid identity handle; use lowercase letters, digits, '-' or '_'")
    if (root / CONFIG_FILE).is_file():
        return _repair(root) if force else InitResult(root, created=False)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} is a file; give a folder for the memory")
    existing = _existing_entries(root)
    if existing and not adopt:
        raise Refused(f"{root} is not empty and not a memory; pass --adopt to add the layout around what is there (nothing is moved or changed)")
    made_root, made_git = not root.exists(), not (root / ".git").exists()
    root.mkdir(parents=True, exist_ok=True)
    result = InitResult(root, created=True, adopted=bool(existing))
    try:
        _bootstrap(root, identity, name, result, made_git)
    except BaseException:
        _undo(root, result, made_root, made_git)
        raise
    return result


def _bootstrap(root: Path, identity: str, name: str, result: InitResult, made_git: bool) -> None:
    values = {
        "project_id": str(uuid.uuid4()),
        "name": name or root.name,
        "identity": identity,
        "identity_name": identity or "an agent",
    }
    if made_git:
        git.run(root, "init", "-q", "-b", "main")
    if result.adopted:
        _refuse_keys(root)
    _copy_template(root, values, result)
    _copy_skills(root, result)
    _ignore_cache(root, result)
    _merge_attributes(root, result)
    if identity:
        _create_identity(root, identity, result)
    from souveraine.laws import install

    result.hooks = install.install(root)
    memory = Memory(root)
    author = git.author_env(root, memory.config["git"]["author_name"], memory.config["git"]["author_email"])
    git.run(root, "add", "-A", "--", *(["."] if result.adopted else result.written), env=author)
    # An adopted vault's notes predate the laws, so its first commit is not checked by them.
    args = ["commit", "-q", "-m", ADOPT_MESSAGE if result.adopted else INIT_MESSAGE]
    if result.adopted:
        args.append("--no-verify")
    done = git.run(root, *args, check=False, env=author)
    if done.returncode != 0:
        raise Refused(f"the bootstrap commit was refused: {(done.stderr or done.stdout).strip()}")
    result.commit = git.head(root)


def _create_identity(root: Path, handle: str, result: InitResult) -> None:
    """The identity named by --identity: its key pair and identities/HANDLE.md, in the bootstrap commit."""
    from souveraine.identity import identities

    def write(rel: str, text: str) -> None:
        atomic_write(root / rel, text)
        result.written += [] if rel in result.written else [rel]

    identities.write_new(Memory(root), handle, write)


def _undo(root: Path, result: InitResult, made_root: bool, made_git: bool) -> None:
    """Leave the folder as init found it."""
    if made_root:
        shutil.rmtree(root, ignore_errors=True)
        return
    for rel in result.written:
        (root / rel).unlink(missing_ok=True)
    if made_git:
        shutil.rmtree(root / ".git", ignore_errors=True)
    for folder in sorted({p for rel in result.written for p in Path(rel).parents if str(p) != "."}, key=lambda p: -len(p.parts)):
        try:
            (root / folder).rmdir()
        except OSError:
            pass


def _repair(root: Path) -> InitResult:
    """Restore template files and hooks that went missing; never overwrite a file."""
    memory = Memory(root)
    result = InitResult(root, created=False)
    values = {"project_id": memory.project_id, "name": memory.config["project"]["name"],
              "identity": memory.config["project"]["identity"], "identity_name": memory.config["project"]["identity"] or "an agent"}
    from souveraine.laws import install

    with memory.change(REPAIR_MESSAGE) as change:
        _copy_template(root, values, result, change=change)
        _copy_skills(root, result, change=change)
        _merge_attributes(root, result, change=change)
        result.hooks = install.install(root)
    result.commit = change.sha
    return result


def _ignore_cache(root: Path, result: InitResult) -> None:
    """An adopted vault's own .gitignore must still keep the cache out of git."""
    path = root / ".gitignore"
    lines = path.read_text(encoding="utf-8").splitlines()
    if not any(line.strip() in (".souveraine/", ".souveraine", "/.souveraine/") for line in lines):
        text = path.read_text(encoding="utf-8")
        atomic_write(path, text + ("" if text.endswith("\n") or not text else "\n") +
                     "# Souveraine's cache: the search index and locks, always rebuildable.\n.souveraine/\n")


def _merge_attributes(root: Path, result: InitResult, change=None) -> None:
    """.gitattributes sends every append-only path to the merge driver (docs/SYNC.md)."""
    from souveraine.sync import attributes

    text = attributes.wanted(Memory(root))
    if text is None:
        return
    existed = (root / attributes.FILE).exists()
    if change is not None:
        change.write(attributes.FILE, text)
    else:
        atomic_write(root / attributes.FILE, text)
    if not existed or change is not None:  # an adopted vault's own file is kept, like its .gitignore
        result.written.append(attributes.FILE)


_KEY_SCAN_BYTES = 8 * 1024 * 1024   # a key is small; a larger file is read this far


def _refuse_keys(root: Path) -> None:
    """Private key material in the vault to adopt is refused before anything is written."""
    import os

    from souveraine.laws import keys

    paths = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        paths += [Path(folder, name).relative_to(root).as_posix() for name in files]
    if not paths:
        return
    ignored = set(git.run(root, "check-ignore", "-z", "--stdin", input="\0".join(paths), check=False).stdout.split("\0"))
    found = []
    for rel in sorted(set(paths) - ignored):
        full = root / rel
        if full.is_symlink():
            continue
        try:
            with open(full, "rb") as handle:
                hits = keys.find(handle.read(_KEY_SCAN_BYTES), rel)
        except OSError:
            continue
        if hits:
            found.append(f"{rel} ({hits[0].what})")
    if found:
        raise Refused(f"the vault holds private key material, which never enters a memory: {', '.join(found)}; "
                      "move it out of the vault (or list it in .gitignore), then adopt again", code="private_key")


def _existing_entries(root: Path) -> list[str]:
    if not root.is_dir():
        return []
    return [p.name for p in root.iterdir() if p.name not in (".git",)]


def _copy_template(root: Path, values: dict[str, str], result: InitResult, change=None) -> None:
    template = resources.path("memory")
    for source in sorted(template.rglob("*")):
        if not source.is_file():
            continue
        rel = source.relative_to(template).as_posix()
        _place(root, rel, _render(source.read_text(encoding="utf-8"), values), result, change)


def _copy_skills(root: Path, result: InitResult, change=None) -> None:
    skills = resources.path("skills")
    for source in sorted(skills.rglob("*")):
        if source.is_file() and "__pycache__" not in source.parts:
            rel = ".skills/" + source.relative_to(skills).as_posix()
            _place(root, rel, source.read_bytes(), result, change)


def _place(root: Path, rel: str, data: str | bytes, result: InitResult, change) -> None:
    target = root / rel
    if target.exists():
        result.skipped.append(rel)
        return
    if change is not None:
        change.write(rel, data)
    else:
        atomic_write(target, data)
    result.written.append(rel)


def _render(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def template_files() -> list[str]:
    """Every file a new memory starts with, as relative paths."""
    template = resources.path("memory")
    return sorted(p.relative_to(template).as_posix() for p in template.rglob("*") if p.is_file())
