"""Durability: concurrent agents, kill -9 at random moments, a model that never answers.

    python bench/crash.py concurrency [--agents 8] [--persists 100] [--recalls 4]
    python bench/crash.py crash [--trials 300] [--seed 1] [--progress]
    python bench/crash.py slow-model [--runs 5]
    python bench/crash.py all [--json]

Every command is the real binary in its own process, against a memory made by the real
init in a temporary folder. docs/DURABILITY.md reports the figures.
"""

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BIN = [sys.executable, str(ROOT / "bin" / "souveraine")]


# -- a memory to break -------------------------------------------------------------------

def environment(tmp: Path) -> dict:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.org\n[init]\n\tdefaultBranch = main\n")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
    for name in ("SOUVERAINE_MEMORY", "SOUVERAINE_NOW", "SOUVERAINE_DEBUG"):
        env.pop(name, None)
    return env


def new_memory(tmp: Path, env: dict, name: str = "memory") -> Path:
    root = tmp / name
    done = subprocess.run([*BIN, "init", str(root), "--identity", "bench"], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"init failed: {done.stderr}")
    return root


def souveraine(root: Path, env: dict, *args: str, input: str | None = None, timeout: float = 600):
    return subprocess.run([*BIN, "--memory", str(root), *args], env=env, capture_output=True, text=True,
                          input=input, timeout=timeout)


def journal_texts(root: Path) -> list[str]:
    from souveraine.store import journal

    return [t.text for t in journal.turns(root)]


# -- concurrency ---------------------------------------------------------------------------

def concurrency(agents: int = 8, persists: int = 100, recalls: int = 4) -> dict:
    """``agents`` processes persist ``persists`` exchanges each while ``recalls`` loops run recall."""
    with tempfile.TemporaryDirectory(prefix="souveraine-concurrency-") as scratch:
        tmp = Path(scratch)
        env = environment(tmp)
        root = new_memory(tmp, env)
        latencies: list[float] = []
        outcomes: dict[str, int] = {"committed": 0, "kept": 0, "failed": 0}
        errors: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def agent(a: int) -> None:
            for k in range(persists):
                start = time.perf_counter()
                done = souveraine(root, env, "persist", "--user", f"agent {a} asks question {k}",
                                  "--assistant", f"agent {a} answers question {k}", "--session", f"agent{a}", "--json")
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    if done.returncode != 0:
                        outcomes["failed"] += 1
                        errors.append(done.stderr.strip()[-300:])
                    elif json.loads(done.stdout).get("kept"):
                        outcomes["kept"] += 1
                    else:
                        outcomes["committed"] += 1

        def recall(r: int) -> int:
            n = 0
            while not stop.is_set():
                souveraine(root, env, "recall", ["question", "answers", "agent", "asks"][r % 4], "--json")
                n += 1
            return n

        recall_threads = [threading.Thread(target=recall, args=(r,)) for r in range(recalls)]
        agent_threads = [threading.Thread(target=agent, args=(a,)) for a in range(agents)]
        started = time.perf_counter()
        for thread in recall_threads + agent_threads:
            thread.start()
        for thread in agent_threads:
            thread.join()
        wall = time.perf_counter() - started
        stop.set()
        for thread in recall_threads:
            thread.join()
        flushed = souveraine(root, env, "persist", "--flush", "--json")
        texts = journal_texts(root)
        expected = [f"agent {a} asks question {k}" for a in range(agents) for k in range(persists)]
        counts = {text: texts.count(text) for text in expected}
        fsck = subprocess.run(["git", "-C", str(root), "fsck", "--full"], capture_output=True, text=True)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True)
        latencies.sort()
        return {
            "agents": agents, "persists_each": persists, "recall_loops": recalls,
            "turns_kept_once": sum(1 for c in counts.values() if c == 1),
            "turns_expected": len(expected),
            "turns_missing": sum(1 for c in counts.values() if c == 0),
            "turns_twice": sum(1 for c in counts.values() if c > 1),
            "outcomes": outcomes, "flush_exit": flushed.returncode,
            "p50_ms": round(statistics.median(latencies) * 1000),
            "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1] * 1000),
            "max_ms": round(latencies[-1] * 1000),
            "wall_s": round(wall, 1),
            "fsck_ok": fsck.returncode == 0, "clean": status.stdout == "",
            "errors": errors[:3],
        }


# -- a model that never answers -------------------------------------------------------------

class SilentModel:
    """A model endpoint that accepts connections and never answers a byte."""

    def __enter__(self):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.server.settimeout(0.2)
        self.held, self.stop = [], threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()
        return f"http://127.0.0.1:{self.server.getsockname()[1]}/v1"

    def _accept(self):
        while not self.stop.is_set():
            try:
                self.held.append(self.server.accept()[0])
            except OSError:
                continue

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        for conn in self.held:
            conn.close()
        self.server.close()


def configure(root: Path, mode: str, endpoint: str = "") -> None:
    config = root / "souveraine.toml"
    text = config.read_text().replace("message_interval = 25", "message_interval = 2")
    text = text.replace('tempos = "detached"', f'tempos = "{mode}"')
    if endpoint:
        text = text.replace('endpoint = ""\nmodel = ""', f'endpoint = "{endpoint}"\nmodel = "silent"')
    config.write_text(text)
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "chore(config): reflect every two messages"], check=True)


def slow_model(runs: int = 5) -> dict:
    """Wall time of a persist that makes reflection due: no model, and a model that never answers."""
    import shutil

    with tempfile.TemporaryDirectory(prefix="souveraine-slow-") as scratch, SilentModel() as endpoint:
        tmp = Path(scratch)
        env = environment(tmp)
        template = new_memory(tmp, env, "template")
        cases = {"no model, detached": ("detached", ""), "silent model, detached": ("detached", endpoint),
                 "no model, inline": ("inline", "")}
        times: dict[str, list[float]] = {name: [] for name in cases}
        outcome: dict[str, dict] = {}
        children = []
        for n in range(runs):
            for name, (mode, url) in cases.items():
                root = tmp / f"m{n}-{len(times[name])}-{mode}-{bool(url)}"
                shutil.copytree(template, root, symlinks=True)
                subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", str(root / ".git" / "hooks")])
                configure(root, mode, url)
                start = time.perf_counter()
                done = souveraine(root, env, "persist", "--user", "Is it due?", "--assistant", "It is.", "--json")
                times[name].append(time.perf_counter() - start)
                data = json.loads(done.stdout)
                outcome[name] = {"exit": done.returncode, "kept": data.get("kept"), "ran": data.get("ran")}
                children += [r["pid"] for r in (data.get("ran") or {}).values() if r.get("pid")]
        for pid in children:    # the detached runners give up on the model after [inference] timeout × tries
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        medians = {name: round(statistics.median(values) * 1000) for name, values in times.items()}
        return {"runs": runs, "median_ms": medians, "outcome": outcome,
                "silent_minus_none_ms": medians["silent model, detached"] - medians["no model, detached"]}


# -- kill -9 at random moments ---------------------------------------------------------------

OPERATIONS = ("persist", "remember", "reflect", "archive", "defrag", "integrate")


def crash(trials: int = 300, seed: int = 1, progress: bool = False, partial: str = "") -> dict:
    """``trials`` kills (SIGKILL to the process group) of a real command at a random moment
    in 0–1500 ms, each followed by the next command (a persist) and the checks. ``partial``:
    a file the figures so far are written to after each trial.

    A turn is owed when its persist exited 0, or was killed after its durable write (the
    exchange in the spool or the journal). An owed turn not in the journal after the next
    command is lost — unless it waits in the spool and that command said it could not
    commit (``kept, not yet committed: …``): then it is deferred, and lost if a later
    command that did commit leaves it out, or if it is still missing at the end."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="souveraine-crash-") as scratch:
        tmp = Path(scratch)
        env = environment(tmp)
        root = new_memory(tmp, env)
        _often(root)
        owed: set[str] = set()          # turns that must be in the journal, exactly once
        kept: set[str] = set()          # memories remember said it kept
        lost: dict[str, dict] = {}      # owed turns found missing after a command that committed
        twice: dict[str, dict] = {}     # owed turns found more than once
        deferred: dict[str, str] = {}   # owed turns waiting in the spool, and why the command could not commit
        figures = {"trials": 0, "killed": 0, "finished": 0, "turns_owed": 0, "turns_lost": 0, "turns_twice": 0,
                   "turns_deferred": 0, "memories_lost": 0, "fsck_failures": 0, "needed_manual_repair": 0,
                   "leftovers": 0, "next_command_failed": 0, "next_command_kept": 0, "setup_failed": 0,
                   "setup_met_git_lock": 0,
                   "by_operation": {op: {"trials": 0, "killed": 0} for op in OPERATIONS}}
        problems: list[str] = []
        started = time.perf_counter()
        for n in range(trials):
            op = OPERATIONS[n % len(OPERATIONS)]
            delay = rng.uniform(0, 1.5)
            try:
                argv, text = _prepare(root, env, op, n, figures, problems)
            except subprocess.CalledProcessError as exc:     # the bench's own setup met what the last trial left
                figures["setup_failed"] += 1
                problems.append(f"trial {n} ({op}) setup: {exc.cmd[3:]} exit {exc.returncode}: {(exc.stderr or '')[-200:]}")
                continue
            process = subprocess.Popen([*BIN, "--memory", str(root), *argv], env=env, start_new_session=True,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                process.wait(timeout=delay)
                killed = False
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                killed = True
            ok = not killed and process.returncode == 0
            if op == "persist" and (ok or _durable(root, text)):
                owed.add(text)
            if op == "remember" and ok:
                kept.add(text)
            probe = f"probe {n} after {op}"
            after = souveraine(root, env, "persist", "--user", probe, "--assistant", "still here", "--json")
            reason = ""
            if after.returncode == 0:
                owed.add(probe)
                try:
                    answer = json.loads(after.stdout)
                except ValueError:
                    answer = {}
                reason = answer.get("reason", "") if answer.get("kept") else ""
                figures["next_command_kept"] += bool(reason)
                if reason:
                    problems.append(f"trial {n} ({op}, killed={killed}, {round(delay * 1000)} ms): the next persist "
                                    f"kept its turn in the spool: {reason[:200]}")
            found = _check(root, owed, kept)
            where = {"trial": n, "op": op, "killed": killed, "kill_ms": round(delay * 1000)}
            _account(root, found, reason, where, lost, twice, deferred)
            figures["trials"] += 1
            figures["killed" if killed else "finished"] += 1
            figures["by_operation"][op]["trials"] += 1
            figures["by_operation"][op]["killed"] += killed
            figures["next_command_failed"] += after.returncode != 0
            figures["memories_lost"] = max(figures["memories_lost"], found["memories_lost"])
            figures["leftovers"] += found["leftovers"]
            figures["fsck_failures"] += not found["fsck_ok"]
            broken = after.returncode != 0 or not found["fsck_ok"] or found["leftovers"] or not found["clean"]
            if broken:
                figures["needed_manual_repair"] += 1
                problems.append(f"trial {n} ({op}, killed={killed}, {where['kill_ms']} ms): {found['what'][:3]} "
                                f"{after.stderr.strip()[-200:]}")
                souveraine(root, env, "doctor", "--fix")
            _tally(figures, owed, lost, twice, deferred)
            if partial:
                Path(partial).write_text(json.dumps({**figures, "lost": list(lost.values())[:20],
                                                     "twice": list(twice.values())[:20], "problems": problems[:20]},
                                                    indent=2))
            if progress:
                print(f"\r{n + 1}/{trials} {op:9} killed={killed!s:5} owed={len(owed)} lost={len(lost)} "
                      f"twice={len(twice)}", end="", file=sys.stderr, flush=True)
        if progress:
            print(file=sys.stderr)
        flushed = souveraine(root, env, "persist", "--flush", "--json")
        found = _check(root, owed, kept)
        deferred_reason = "" if flushed.returncode else (json.loads(flushed.stdout or "{}").get("reason") or "")
        _account(root, found, deferred_reason, {"trial": "end", "op": "persist --flush"}, lost, twice, deferred)
        for text in list(deferred):     # nothing may still wait at the end
            lost.setdefault(text, {"text": text, "trial": "end", "in_spool": True, "why": deferred.pop(text)})
        _tally(figures, owed, lost, twice, deferred)
        figures["final_flush_exit"] = flushed.returncode
        figures["fsck_ok_at_end"] = found["fsck_ok"]
        figures["wall_s"] = round(time.perf_counter() - started, 1)
        figures["lost"] = list(lost.values())
        figures["twice"] = list(twice.values())
        figures["problems"] = problems[:20]
        return figures


def _account(root: Path, found: dict, reason: str, where: dict, lost: dict, twice: dict, deferred: dict) -> None:
    """Sort the owed turns the checks found missing or doubled: lost, deferred (the command
    said why it could not commit, and the turn waits in the spool), or twice."""
    spooled = _spooled(root)
    for text in found["missing"]:
        in_spool = any(text in entry for entry in spooled)
        if in_spool and reason:
            deferred[text] = reason
        elif text not in lost:
            lost[text] = {**where, "text": text, "in_spool": in_spool, "deferred_before": deferred.get(text, "")}
    for text in list(deferred):
        if text not in found["missing"]:
            deferred.pop(text)
    for text in found["doubled"]:
        twice.setdefault(text, {**where, "text": text})


def _tally(figures: dict, owed: set, lost: dict, twice: dict, deferred: dict) -> None:
    figures["turns_owed"] = len(owed)
    figures["turns_lost"] = len(lost)
    figures["turns_twice"] = len(twice)
    figures["turns_deferred"] = len(deferred)


def _spooled(root: Path) -> list[str]:
    texts = []
    for path in (root / ".souveraine" / "spool").glob("*.json"):
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return texts


def _often(root: Path) -> None:
    """Reflect every 3 messages and archive every 5, in persist's own process: so the kills
    land in the tempos too."""
    config = root / "souveraine.toml"
    text = config.read_text().replace("message_interval = 25", "message_interval = 3")
    text = text.replace("interval = 100", "interval = 5").replace('tempos = "detached"', 'tempos = "inline"')
    config.write_text(text)
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "chore(config): reflect and archive often"], check=True)


def _prepare(root: Path, env: dict, op: str, n: int, figures: dict, problems: list) -> tuple[list[str], str]:
    """The command to kill, after what it needs to have work to do."""
    if op == "persist":
        text = f"trial {n} asks about the harbour"
        return ["persist", "--user", text, "--assistant", f"trial {n} answers: Cascais"], text
    if op == "remember":
        text = f"Trial {n}: Tomás keeps the boat at Cascais"
        return ["remember", text], text
    if op == "reflect":
        return ["reflect", "--force"], ""
    if op == "archive":
        return ["archive", "--force"], ""
    if op == "defrag":
        note = root / "domains" / f"sailing-{n}.md"
        note.write_text(f"# Sailing {n}\n\nTomás sails on Sundays, trial {n}. He keeps the boat at Cascais.\n")
        _by_hand(root, env, n, figures, problems, ["add", "--", str(note)],
                 ["commit", "-qm", f"docs(domains): sailing {n}"])
        return ["defrag"], ""
    name = f"f{n}"
    where = souveraine(root, env, "fork", "start", name, "--task", "find the harbour").stdout.strip()
    if where:
        souveraine(Path(where), env, "remember", f"Fork {n} found the harbour at Cascais")
        souveraine(root, env, "fork", "return", name, "--summary", f"Fork {n}: Cascais.")
    return ["fork", "integrate", name], ""


def _by_hand(root: Path, env: dict, n: int, figures: dict, problems: list, *commands: list[str]) -> None:
    """A person's own git commands. When one of git's locks is in the way (a command was
    killed a moment ago), the person does what git's message and docs/DURABILITY.md say:
    'souveraine doctor --fix', then the same again. Anything else is the bench's failure."""
    for command in commands:
        done = subprocess.run(["git", "-C", str(root), *command], env=env, capture_output=True, text=True)
        if done.returncode != 0 and ".lock': File exists" in done.stderr:
            figures["setup_met_git_lock"] += 1
            problems.append(f"trial {n} setup met git's lock: {_lock_holders(root, done.stderr)}")
            souveraine(root, env, "doctor", "--fix")
            done = subprocess.run(["git", "-C", str(root), *command], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise subprocess.CalledProcessError(done.returncode, ["git", "-C", str(root), *command],
                                                done.stdout, done.stderr)


def _lock_holders(root: Path, said: str) -> str:
    """Which of git's locks was in the way, its age, and the processes working in the memory."""
    import re

    named = re.search(r"Unable to create '([^']+\.lock)'", said)
    lock = Path(named[1]) if named else root / ".git" / "index.lock"
    try:
        age = f"{lock.name}, {time.time() - lock.stat().st_mtime:.2f} s old"
    except OSError:
        return f"{lock.name}, gone by the time it was looked at"
    workers = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:
            continue
        if cwd.startswith(str(root)) or str(root) in line:
            workers.append(f"{entry.name}: {line}")
    return f"{age}; processes: {workers[:4]}"


def _durable(root: Path, text: str) -> bool:
    """Whether a killed persist had made its exchange durable: in the spool, or journaled."""
    places = list((root / ".souveraine" / "spool").glob("*.json")) + list((root / "journal").rglob("*.md"))
    for path in places:
        try:
            if text in path.read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


def _check(root: Path, owed: set[str], kept: set[str]) -> dict:
    texts = journal_texts(root)
    counts = {text: texts.count(text) for text in owed}
    memories = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in (root / "memories").rglob("*.md"))
    fsck = subprocess.run(["git", "-C", str(root), "fsck", "--full"], capture_output=True, text=True)
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True).stdout
    what = []
    forks = {p.name for p in (root / ".souveraine" / "forks").iterdir()} if (root / ".souveraine" / "forks").is_dir() else set()
    live = _live_forks(root)
    stray_forks = sorted(forks - live)
    worktrees = [line for line in subprocess.run(["git", "-C", str(root), "worktree", "list", "--porcelain"],
                                                 capture_output=True, text=True).stdout.splitlines()
                 if line.startswith("worktree ") and line[9:] != str(root)
                 and Path(line[9:]).name not in live]
    branches = subprocess.run(["git", "-C", str(root), "branch", "--list", "defrag/*"], capture_output=True, text=True).stdout.split()
    temps = [str(p) for p in root.rglob("*.tmp") if ".git" not in p.parts]
    git_dir = root / ".git"
    locks = [p for p in (git_dir / "index.lock", git_dir / "HEAD.lock", git_dir / "packed-refs.lock",
                         git_dir / "packed-refs.new", *(git_dir / "refs" / "heads").rglob("*.lock")) if p.exists()]
    changes = list((root / ".souveraine" / "changes").glob("*")) if (root / ".souveraine" / "changes").is_dir() else []
    for label, items in (("worktrees", worktrees), ("defrag branches", branches), ("temp files", temps),
                         ("git locks", locks), ("stray forks", stray_forks), ("changes cut short", changes)):
        if items:
            what.append(f"{label}: {items[:2]}")
    if status:
        what.append(f"status: {status.splitlines()[:3]}")
    return {"missing": sorted(t for t, c in counts.items() if c == 0),
            "doubled": sorted(t for t, c in counts.items() if c > 1),
            "memories_lost": sum(1 for text in kept if text not in memories),
            "fsck_ok": fsck.returncode == 0, "clean": not status,
            "leftovers": len(worktrees) + len(branches) + len(temps) + len(locks) + len(stray_forks) + len(changes),
            "what": what + ([f"fsck: {fsck.stderr.strip()[:200]}"] if fsck.returncode else [])}


def _live_forks(root: Path) -> set[str]:
    """Forks started and not yet integrated or closed: theirs is no leftover."""
    folder = root / "reference" / "forks"
    live = set()
    for path in folder.glob("*.md") if folder.is_dir() else []:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "status: active" in text or "status: returned" in text:
            live.add(path.stem)
    return live


# -- the command line ---------------------------------------------------------------------

def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("concurrency", "crash", "slow-model", "all"))
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--persists", type=int, default=100)
    parser.add_argument("--recalls", type=int, default=4)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--partial", default="", metavar="FILE", help="crash: write the figures so far here after each trial")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    figures = {}
    if options.part in ("slow-model", "all"):
        figures["slow_model"] = slow_model(options.runs)
    if options.part in ("concurrency", "all"):
        figures["concurrency"] = concurrency(options.agents, options.persists, options.recalls)
    if options.part in ("crash", "all"):
        figures["crash"] = crash(options.trials, options.seed, options.progress, options.partial)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
