"""A recall through the MCP server, as an agent pays for it: one long-lived `souveraine mcp`
per memory, many `tools/call recall` requests over its stdio JSON-RPC, each beside a `ping`
(the protocol's own round trip through the same server: what a call cannot cost less than).

    python bench/mcp.py [--years 1,10] [--repeat 10]
    python bench/mcp.py --memory PATH [--memory PATH …] [--repeat 10]

``--memory`` asks memories as they are (each its own config: sentence vectors or not), e.g. a
generated ten-year memory whose vectors were filled once (`souveraine index --vectors`).

`bench/run` reports the same figure ("recall through the MCP server") beside its other paths.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import SOUVERAINE, table  # noqa: E402

PROTOCOL = "2025-06-18"
TICK = os.sysconf("SC_CLK_TCK")


class Server:
    """A running `souveraine mcp` on one memory, spoken to line by line (JSON-RPC over stdio)."""

    def __init__(self, root: Path, env: dict | None = None):
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([*SOUVERAINE, "--memory", str(root), "mcp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, env={**os.environ, **(env or {})},
                                        text=True, encoding="utf-8", bufsize=1)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                    "clientInfo": {"name": "souveraine-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict | None = None) -> dict:
        """The answer to one request (notifications the server sends meanwhile are passed over)."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})})
        while True:
            line = self.process.stdout.readline()
            if not line:
                self.log.seek(0)
                raise SystemExit(f"bench: the MCP server stopped: {self.log.read().decode(errors='replace')[-500:]}")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise SystemExit(f"bench: {method} failed: {answer['error']}")
                return answer["result"]

    def recall(self, query: str) -> dict:
        result = self.request("tools/call", {"name": "recall", "arguments": {"query": query}})
        if result.get("isError"):
            raise SystemExit(f"bench: recall {query!r} failed: {result['content'][0]['text']}")
        return result

    def cpu(self) -> float:
        """Seconds of CPU the server has used so far (user and system)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def peak_mb(self) -> float:
        """The server's peak resident memory so far, in MiB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def measure(servers: list[Server], queries: list[str], repeat: int) -> list[dict]:
    """Per server: the median wall time of a recall call and of a ping, and the server's mean CPU
    per recall call. Each round asks every server in turn (noise falls on all alike); the
    first round, which opens the index and warms caches, is dropped."""
    calls: list[list[float]] = [[] for _ in servers]
    pings: list[list[float]] = [[] for _ in servers]
    cpu = [0.0] * len(servers)
    loads = []
    for n in range(1 + repeat):
        for query in queries:
            for i, server in enumerate(servers):
                before, started = server.cpu(), time.perf_counter()
                server.recall(query)
                elapsed, used = time.perf_counter() - started, server.cpu() - before
                started = time.perf_counter()
                server.request("ping")
                pinged = time.perf_counter() - started
                if n:
                    calls[i].append(elapsed)
                    pings[i].append(pinged)
                    cpu[i] += used
        loads.append(os.getloadavg()[0])
    return [{"median": statistics.median(calls[i]), "floor": statistics.median(pings[i]),
             "cpu": cpu[i] / len(calls[i]), "load": statistics.median(loads)} for i in range(len(servers))]


def main() -> None:
    from bench import generate
    from bench.figures import QUERIES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--years", default="1,10")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--cache", type=Path, default=generate.CACHE)
    parser.add_argument("--memory", type=Path, action="append", default=[],
                        help="a memory to ask as it is, instead of generated ones (repeatable)")
    options = parser.parse_args()
    labels = [str(p) for p in options.memory] or [f"{y} y" for y in options.years.split(",")]
    with tempfile.TemporaryDirectory(prefix="souveraine-bench-") as tmp:
        roots = list(options.memory)
        for label in labels if not roots else ():
            built = generate.cached(generate.Shape.years(float(label.split()[0])), cache=options.cache)
            work = Path(tmp) / label.replace(" ", "")
            work.mkdir()
            roots.append(generate.copy_of(built, work))
        servers = [Server(root) for root in roots]
        try:
            found = measure(servers, QUERIES, options.repeat)
        finally:
            for server in servers:
                server.close()
    rows = [(label, f"{f['median'] * 1000:.1f} ms", f"{f['floor'] * 1000:.1f} ms", f"{f['cpu'] * 1000:.1f} ms",
             f"{f['load']:.1f}") for label, f in zip(labels, found)]
    print(table(rows, ("memory", "recall call (median)", "ping (median)", "server CPU per call (mean)", "load")))


if __name__ == "__main__":
    main()
