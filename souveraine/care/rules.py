"""Durable rules and corrections, each appended as one line to the file where it belongs.

``remember_to`` backs ``souveraine remember TEXT --to PATH``: what the words say about the
human goes to the Cloister's file for it (the N+1's reading, ``tempos.corrections``: "never
schedule meetings before 10am" to system/human/prefs/workflow.md, an interest to
prefs/topics.md, a fact to system/human/identity.md, how the memory is kept to
system/conventions.md); any other preference to system/human/prefs/communication.md, a
convention to system/project/conventions.md, a do-not to system/project/do-nots.md,
anything else learned to system/project/learnings.md — unless PATH says otherwise. A correction commits as ``fix(memory)``, a new rule as
``feat(memory)``.
"""

import posixpath
import re

from souveraine.errors import UsageError
from souveraine.store import clock, layout, notes
from souveraine.store.memory import Memory

TARGETS = {
    "preference": layout.PREFS_COMMUNICATION,
    "do-not": layout.PROJECT_DO_NOTS,
    "convention": layout.PROJECT_CONVENTIONS,
    "learning": layout.PROJECT_LEARNINGS,
}
KINDS = ("rule", "correction")
# Where a rule does not belong: raw experience, one-file-per-item folders, the witness.
_NOT_FOR_RULES = ("journal/", "chronicle/", "inbox/", "memories/", "identities/", "covenants/", "archive/",
                  "system/metacognition/", "system/persona/effective.md", "system/synthesized/", "system/state.md")
_WORDS = (
    ("preference", re.compile(r"\b(?:prefers?|preferred|preference|likes?|dislikes?|loves?|hates?|favou?rite|call me|address me|"
                              r"wants? (?:me|you|us) to)\b", re.IGNORECASE)),
    ("do-not", re.compile(r"^\s*(?:never|don'?t|do not|avoid|stop)\b|\b(?:never|must not|mustn'?t|should not|shouldn'?t|"
                          r"do not|don'?t|forbidden|not allowed)\b", re.IGNORECASE)),
    ("convention", re.compile(r"\b(?:conventions?|always|we use|use \S+ for|naming|named|style|formatt?(?:ed|ing)?|indent\w*|"
                              r"commit messages?|branch(?:es)?|tabs|spaces|camel ?case|snake_case|kebab-case)\b", re.IGNORECASE)),
)
_CORRECTION = re.compile(r"\b(?:actually|instead|correction|wrong|no longer|rather than|mistaken|not \w+ but|fix(?:ed)?:)\b",
                         re.IGNORECASE)


def guess(text: str) -> str:
    """What kind of rule the words make: preference, do-not, convention or learning."""
    return next((name for name, words in _WORDS if words.search(text)), "learning")


def target_for(text: str) -> str:
    """The file a rule belongs in, guessed from its words: the human's own files first."""
    from souveraine.tempos import corrections

    return corrections.human_file(text) or TARGETS[guess(text)]


def remember_to(memory: Memory, text: str, to: str | None = None, *, kind: str | None = None) -> dict:
    """Append ``text`` as one rule line to ``to`` (or the file its words point to), in one commit."""
    line_text = " ".join((text or "").split())
    if not line_text:
        raise UsageError("the rule is empty; give the words to keep")
    if kind is not None and kind not in KINDS:
        raise UsageError(f"kind must be rule or correction, not '{kind}'")
    path = _checked(memory, to or target_for(line_text))
    kind = kind or ("correction" if _CORRECTION.search(line_text) else "rule")
    existing = memory.read_text(path) if memory.exists(path) else None
    if existing is not None and re.search(rf"^- {re.escape(line_text)}(?: \(\d{{4}}-\d\d-\d\d\))?$", existing, re.MULTILINE):
        return {"path": path, "kind": kind, "line": None, "changed": False, "commit": None}
    line = f"- {line_text} ({clock.now().date().isoformat()})"
    message = f"{'fix' if kind == 'correction' else 'feat'}(memory): {'correct' if kind == 'correction' else 'rule in'} {path}: {_short(line_text)}"
    with memory.change(message) as change:
        if existing is None:
            change.write(path, _new_file(path) + "\n" + line + "\n")
        else:
            change.append(path, _separator(existing) + line + "\n")
    return {"path": path, "kind": kind, "line": line, "changed": True, "commit": change.sha}


def _checked(memory: Memory, path: str) -> str:
    path = path.strip().removeprefix("./")
    name = posixpath.basename(path)
    if not name or name.startswith("."):
        raise UsageError(f"'{path}' does not name a file; give one like system/human/prefs.md")
    if any(part.endswith(".md") for part in path.split("/")[:-1]):
        raise UsageError(f"'{path}' puts a file inside a note's name; give one like system/human/prefs.md")
    if not path.endswith(".md"):
        path += ".md"
    full = memory.path(path)
    if full.is_dir():
        raise UsageError(f"'{path}' is a folder in the memory; give a file like {path[:-3]}/notes.md")
    for parent in full.parents:
        if parent == memory.root:
            break
        if parent.exists() and not parent.is_dir():
            raise UsageError(f"'{path}' goes through {memory.rel(parent)}, which is a file; give a file in a folder")
    if path.startswith(_NOT_FOR_RULES):
        raise UsageError(f"{path} is not a place for rules; use system/project/, system/human/, people/ or .skills/")
    if layout.region(path) is None and not path.startswith(".skills/"):
        raise UsageError(f"{path} is outside the memory's layout; rules go in system/, people/, domains/, reference/ or .skills/")
    return path


def _new_file(path: str) -> str:
    title = posixpath.splitext(posixpath.basename(path))[0].replace("-", " ").replace("_", " ").capitalize()
    note = notes.new({"description": f"{title} — durable rules and corrections, one line each, newest last.",
                      "tags": [path.split("/")[0].lstrip(".")]}, f"# {title}\n")
    return notes.dumps(note)


def _separator(text: str) -> str:
    """What must come before a new list line so it starts a line, and a list when none was there."""
    if not text.endswith("\n"):
        text += "\n"
        prefix = "\n"
    else:
        prefix = ""
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    return prefix if last.startswith("- ") or not last.strip() else prefix + "\n"


def _short(text: str, limit: int = 50) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
