"""`souveraine doctor`, `defrag` and `digest`: care of the memory."""

import sys

import click

from souveraine.cli.common import emit, json_option, pass_memory, progress, say


@click.command(name="doctor")
@click.option("--fix", "apply_fixes", is_flag=True,
              help="Apply the safe fixes in one 'fix(memory): …' commit, then audit again. Memories still in "
                   "memories/ itself first move into their year folders ('refactor(memory): …' commits, then "
                   "one 'fix(memory): …' for the links to them).")
@json_option
@pass_memory
def doctor_cmd(memory, apply_fixes, as_json):
    """Audit the memory's health: each finding, why it matters, and the fix.

    Exits 1 while an error-level finding remains.

    Example:

    \b
        souveraine doctor && souveraine doctor --fix
    """
    from souveraine.care import doctor

    if apply_fixes:
        result = doctor.mend(memory, progress=progress("mending"))
        if result["fixed"]:
            say(f"fixed {len(result['fixed'])} finding(s)" + (f" in {result['commit'][:10]}" if result["commit"] else ""))
        findings = result["findings"]
    else:
        findings = [f.to_dict() for f in doctor.doctor(memory, progress=progress("auditing"))]
    emit(findings, as_json, lambda found: render_findings(found, len(doctor.CHECKS)))
    if any(f["severity"] == doctor.ERROR for f in findings):
        sys.exit(1)


def render_findings(findings: list[dict], checks: int) -> str:
    if not findings:
        return f"healthy: {checks} checks, no findings"
    lines = []
    for f in findings:
        lines.append(f"{f['severity']:<7} {f['path']}: {f['why']}")
        lines.append(f"        fix: {f['fix']}")
    counts = {}
    for f in findings:
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
    tally = ", ".join(f"{n} {severity}{'s' if n > 1 else ''}" for severity, n in counts.items())
    lines.append(f"{len(findings)} finding{'s' if len(findings) > 1 else ''} ({tally}) from {checks} checks")
    return "\n".join(lines)


@click.command(name="defrag")
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@json_option
@pass_memory
def defrag_cmd(memory, dry_run, as_json):
    """Split overgrown notes, merge near-duplicates, fill frontmatter, mend links.

    Works in a git worktree on its own branch, then merges back as one
    'chore(defrag): …' commit. Append-only files are never touched.

    Example:

    \b
        souveraine defrag --dry-run && souveraine defrag
    """
    from souveraine.care import defrag

    result = defrag.defrag(memory, dry_run=dry_run, progress=progress("defragmenting"))
    emit(result["plan"] if as_json or dry_run else [], as_json, render_plan)
    if as_json:
        return
    n = len(result["plan"])
    if not n:
        say("defrag: nothing to do")
    elif dry_run:
        say(f"defrag: would make {n} change{'s' if n > 1 else ''} in one 'chore(defrag): …' commit; "
            "run 'souveraine defrag' to apply")
    else:
        say(f"defrag: {n} change{'s' if n > 1 else ''} in {result['commit'][:10]}")


def render_plan(plan: list[dict]) -> str:
    return "\n".join(f"{step['action']:<9} {step['path']}: {step['detail']}" for step in plan)


@click.command(name="digest")
@click.option("--week", metavar="YYYY-Www", default=None, help="The ISO week to digest (default: last week).")
@json_option
@pass_memory
def digest_cmd(memory, week, as_json):
    """Distil a week of journal into people/ and domains/ notes, each line linked to its turn.

    The journal stays as it is: it is the receipt.

    Example:

    \b
        souveraine digest --week 2026-W48
    """
    from souveraine.care import digest

    result = digest.digest(memory, week, progress=progress("digesting"))
    emit(result, as_json, render_digest)


def render_digest(result: dict) -> str:
    if not result["notes"]:
        return f"{result['week']}: nothing to digest"
    lines = [f"{result['week']}: {result['bullets']} line(s) into {len(result['notes'])} note(s)"]
    lines += [f"  {path}" for path in result["notes"]]
    return "\n".join(lines)
