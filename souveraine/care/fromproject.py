"""`init --from-project REPO`: a code repository described at a high level, from its files and history.

``scan`` reads the repository (languages by file count, top-level layout, build files,
docs, and the commit conventions its git history keeps) and never changes it; ``write``
puts the result in system/project/architecture.md and conventions.md, as one section each
that a second scan replaces, leaving what a person wrote there alone.
"""

import posixpath
import re
import tomllib
from collections import Counter
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.store import clock, conventions, git, notes
from souveraine.store.memory import Memory

SECTION = "## From the repository"
HISTORY = 500            # recent commits read for the conventions
CONVENTIONAL = 0.6       # share of Conventional Commits above which the project keeps them
LANGUAGES = {
    ".py": "Python", ".pyi": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin",
    ".rb": "Ruby", ".php": "PHP", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".cs": "C#",
    ".swift": "Swift", ".m": "Objective-C", ".scala": "Scala", ".clj": "Clojure", ".ex": "Elixir", ".exs": "Elixir",
    ".erl": "Erlang", ".hs": "Haskell", ".ml": "OCaml", ".lua": "Lua", ".r": "R", ".jl": "Julia", ".dart": "Dart",
    ".vue": "Vue", ".svelte": "Svelte", ".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".sql": "SQL",
    ".html": "HTML", ".css": "CSS", ".scss": "CSS", ".zig": "Zig", ".nim": "Nim", ".pl": "Perl",
}
BUILD_FILES = {
    "pyproject.toml": "Python packaging (pyproject.toml)", "setup.py": "Python packaging (setup.py)",
    "requirements.txt": "Python requirements", "package.json": "npm package", "Cargo.toml": "Rust crate (Cargo)",
    "go.mod": "Go module", "pom.xml": "Maven build", "build.gradle": "Gradle build", "build.gradle.kts": "Gradle build",
    "Gemfile": "Ruby bundle", "composer.json": "PHP Composer", "Makefile": "Makefile", "CMakeLists.txt": "CMake build",
    "Dockerfile": "Docker image", "docker-compose.yml": "Docker Compose", "tox.ini": "tox", "noxfile.py": "nox",
    ".pre-commit-config.yaml": "pre-commit hooks", ".gitlab-ci.yml": "GitLab CI", ".github/workflows": "GitHub Actions",
}
ROLES = {
    "src": "source", "lib": "library code", "app": "application", "pkg": "packages", "cmd": "command entry points",
    "internal": "internal packages", "tests": "tests", "test": "tests", "spec": "tests", "docs": "documentation",
    "doc": "documentation", "scripts": "scripts", "bin": "launchers", "examples": "examples", "tools": "tooling",
    "migrations": "database migrations", "static": "static assets", "assets": "assets", "config": "configuration",
    "bench": "benchmarks", "benchmarks": "benchmarks", "hooks": "hooks", "templates": "templates", ".github": "CI",
}
_SKIP = ("node_modules/", "vendor/", ".venv/", "venv/", "__pycache__/", "dist/", "build/", "target/")


def scan(repo: str | Path) -> dict:
    """What the repository is: its name, languages, layout, tooling, docs and commit conventions."""
    root = Path(repo).expanduser().resolve()
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder; give the path of a code repository")
    tracked = _is_git(root)
    files = _files(root, tracked)
    return {
        "name": _name(root),
        "path": str(root),
        "head": git.head(root) if tracked else None,
        "summary": _summary(root),
        "languages": _languages(files),
        "layout": _layout(files),
        "build": [{"file": f, "what": what} for f, what in BUILD_FILES.items()
                  if f in files or any(p.startswith(f + "/") for p in files)],
        "tests": _tests(root, files),
        "docs": _docs(files),
        "commits": _commits(root) if tracked else {"count": 0, "style": "unknown"},
    }


def write(memory: Memory, scan_result: dict) -> dict:
    """Describe the project in system/project/architecture.md and conventions.md, in one commit."""
    sections = {"system/project/architecture.md": _architecture(scan_result),
                "system/project/conventions.md": _conventions(scan_result)}
    with memory.change(f"feat(init): describe project from {scan_result['name']}") as change:
        for path, section in sections.items():
            change.write(path, _with_section(memory, path, section))
    return {"paths": list(sections), "commit": change.sha}


# -- reading the repository ---------------------------------------------------------------


def _is_git(root: Path) -> bool:
    done = git.run(root, "rev-parse", "--show-toplevel", check=False)
    return done.returncode == 0 and Path(done.stdout.strip()).resolve() == root


def _files(root: Path, tracked: bool) -> list[str]:
    if tracked:
        listed = git.run(root, "ls-files", "-z").stdout.split("\0")
    else:
        listed = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return sorted(p for p in listed if p and not p.startswith(".git/") and not any("/" + s in "/" + p for s in _SKIP))


def _name(root: Path) -> str:
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
            if name:
                return str(name)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            pass
    package = root / "package.json"
    if package.is_file():
        match = re.search(r'"name"\s*:\s*"([^"]+)"', package.read_text(encoding="utf-8", errors="replace"))
        if match:
            return match[1]
    return root.name


def _summary(root: Path) -> str:
    """The README's first paragraph of prose."""
    for name in ("README.md", "README.rst", "README.txt", "README"):
        readme = root / name
        if readme.is_file():
            text = notes.parse(readme.read_text(encoding="utf-8", errors="replace")).body
            if name != "README.md":
                blocks = [b for b in re.split(r"\n\s*\n", text) if not b.startswith(("#", "```", "=", "-"))]
            else:
                from souveraine.language import markdown

                blocks = [b for b, _ in markdown.paragraphs(text)]
            for block in blocks:
                block = " ".join(block.split())
                if block and not block.startswith(("[!", "![", "<", "|")) and not block.endswith(":"):
                    return block if len(block) <= 300 else block[:299].rstrip() + "…"
    return ""


def _languages(files: list[str]) -> list[dict]:
    counts = Counter(LANGUAGES[ext] for f in files if (ext := posixpath.splitext(f)[1].lower()) in LANGUAGES)
    total = sum(counts.values())
    return [{"language": lang, "files": n, "share": round(n / total, 2)} for lang, n in counts.most_common(8)]


def _layout(files: list[str]) -> list[dict]:
    folders = Counter(f.split("/", 1)[0] for f in files if "/" in f)
    return [{"folder": name + "/", "files": n, "role": ROLES.get(name.lower(), "")}
            for name, n in sorted(folders.items(), key=lambda item: (-item[1], item[0]))[:12]]


def _tests(root: Path, files: list[str]) -> dict:
    names = [posixpath.basename(f) for f in files]
    folder = next((d for d in ("tests", "test", "spec") if any(f.startswith(d + "/") for f in files)), None)
    framework = None
    if any(n.startswith("test_") and n.endswith(".py") or n.endswith("_test.py") for n in names):
        framework = "pytest" if "pytest" in _read(root, "pyproject.toml", "setup.cfg", "tox.ini", "requirements.txt") else None
    elif any(n.endswith("_test.go") for n in names):
        framework = "go test"
    elif "Cargo.toml" in files:
        framework = "cargo test"
    elif "package.json" in files:
        framework = next((t for t in ("vitest", "jest", "mocha") if t in _read(root, "package.json")), None)
    return {"folder": folder + "/" if folder else None, "framework": framework}


def _docs(files: list[str]) -> list[str]:
    top = [f for f in files if "/" not in f and re.match(r"(?i)(readme|contributing|changelog|architecture|design|security)\b", f)]
    pages = [f for f in files if f.startswith(("docs/", "doc/")) and f.endswith((".md", ".rst"))]
    return top + ([f"{pages[0].split('/')[0]}/ ({len(pages)} pages)"] if pages else [])


def _commits(root: Path) -> dict:
    if git.head(root) is None:
        return {"count": 0, "style": "unknown"}
    subjects = [s for s in git.run(root, "log", "--no-merges", f"-n{HISTORY}", "--format=%s").stdout.splitlines() if s.strip()]
    headers = [h for h in map(conventions.parse, subjects) if h is not None and h.type in conventions.TYPES]
    share = len(headers) / len(subjects) if subjects else 0.0
    result = {"count": len(subjects), "conventional": len(headers), "share": round(share, 2),
              "style": "conventional" if subjects and share >= CONVENTIONAL else "free-form",
              "types": dict(sorted(Counter(h.type for h in headers).items(), key=lambda item: (-item[1], item[0]))),
              "scopes": [s for s, _ in Counter(h.scope for h in headers if h.scope).most_common(8)]}
    tickets = sum(1 for s in subjects if re.match(r"^\[?[A-Z][A-Z0-9]+-\d+\]?[: ]", s))
    if tickets >= max(1, len(subjects) // 3):
        result["tickets"] = tickets
    return result


def _read(root: Path, *names: str) -> str:
    return "".join((root / n).read_text(encoding="utf-8", errors="replace") for n in names if (root / n).is_file())


# -- writing the memory -------------------------------------------------------------------


def _architecture(scan_result: dict) -> str:
    lines = [SECTION, ""]
    if scan_result["summary"]:
        lines += [f"{scan_result['name']}: {scan_result['summary']}", ""]
    if scan_result["languages"]:
        lines.append("- Languages: " + ", ".join(f"{l['language']} ({_files_count(l['files'])}, {l['share']:.0%})" for l in scan_result["languages"]))
    if scan_result["layout"]:
        lines.append("- Layout: " + ", ".join(f"`{d['folder']}`" + (f" {d['role']}" if d["role"] else "") + f" ({d['files']})"
                                              for d in scan_result["layout"]))
    if scan_result["build"]:
        lines.append("- Build and tooling: " + ", ".join(b["what"] for b in scan_result["build"]))
    if scan_result["docs"]:
        lines.append("- Docs: " + ", ".join(scan_result["docs"]))
    lines += ["", _provenance(scan_result) + " Details belong in `reference/architecture/`."]
    return "\n".join(lines) + "\n"


def _conventions(scan_result: dict) -> str:
    lines = [SECTION, ""]
    commits = scan_result["commits"]
    if commits.get("style") == "conventional":
        types = ", ".join(f"{t} ({n})" for t, n in commits["types"].items())
        lines.append(f"- Commits follow Conventional Commits (`type(scope): what changed`): {commits['conventional']} of the "
                     f"last {commits['count']}. Types used: {types}." + (f" Scopes: {', '.join(commits['scopes'])}." if commits["scopes"] else ""))
    elif commits.get("count"):
        lines.append(f"- Commit messages are free-form (only {commits['conventional']} of the last {commits['count']} are Conventional Commits)."
                     + (" Most name a ticket first (`ABC-123: …`)." if commits.get("tickets") else ""))
    tests = scan_result["tests"]
    if tests["framework"] or tests["folder"]:
        lines.append("- Tests" + (f" live in `{tests['folder']}`" if tests["folder"] else "")
                     + (f" and run with {tests['framework']}" if tests["framework"] else "") + ".")
    if scan_result["languages"]:
        lines.append(f"- Main language: {scan_result['languages'][0]['language']}.")
    if any(d.lower().startswith("contributing") for d in scan_result["docs"]):
        lines.append("- CONTRIBUTING.md holds the project's own rules: read it before changing anything.")
    lines += ["", _provenance(scan_result)]
    return "\n".join(lines) + "\n"


def _files_count(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _provenance(scan_result: dict) -> str:
    at = f" at `{scan_result['head'][:10]}`" if scan_result["head"] else ""
    return f"Scanned from `{scan_result['path']}`{at} on {clock.now().date().isoformat()}."


def _with_section(memory: Memory, path: str, section: str) -> str:
    """The file with ``section`` in place of an earlier scan's (or after what is there)."""
    text = memory.read_text(path) if memory.exists(path) else "---\ndescription: The project, at a high level.\n---\n"
    rows = text.rstrip("\n").split("\n")
    from souveraine.language import markdown

    found = markdown.section("\n".join(rows), SECTION.lstrip("# "))
    if found is not None:
        rows = rows[:found.heading.line] + rows[found.end:]
    kept = "\n".join(rows).rstrip("\n")
    return kept + "\n\n" + section
