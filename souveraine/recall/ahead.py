"""The work tree scanned ahead of queries, by a process that lives long (the recall server, the MCP server).

A search's quick look at the work tree becomes a scan — ``git status`` over every file, 150 to
220 ms at ten years — once the index's last scan is ``index.SCAN_SECONDS`` old (recall/index.py).
An agent asks once per prompt, minutes apart, so nearly every query it sends would pay it. A
process that stays up scans ``LEAD`` seconds before that is due, in a thread of its own and
once its queries let it (``calm``), so they find the index scanned: the same index a query's
own scan would have made, read by the command line and the servers alike.
"""

import sys
import threading
import traceback
from pathlib import Path

LEAD = 30               # seconds before a query would scan the work tree that the scan is made


class Scanner:
    """Scans the work tree of the memory at ``root`` ahead, until ``stopping`` is set."""

    def __init__(self, root: Path, calm=None, stopping: threading.Event | None = None):
        self.root = Path(root)
        self.calm = calm or (lambda: None)      # returns once no query is being answered
        self.stopping = stopping or threading.Event()
        self.nudged = threading.Event()
        self.scanning = False
        self.scans = 0

    def start(self) -> "Scanner":
        threading.Thread(target=self.run, name="scan", daemon=True).start()
        return self

    def nudge(self) -> None:
        """Look again now (a request came: another process may have rebuilt the index meanwhile)."""
        self.nudged.set()

    def run(self) -> None:
        from souveraine.recall import index
        from souveraine.store.memory import Memory

        while not self.stopping.is_set():
            wait = index.SCAN_SECONDS
            try:
                due = index.scan_due(Memory(self.root))     # None: no index yet, a query builds it
                if due is not None and due <= LEAD:
                    self.calm()
                    if self.stopping.is_set():
                        return
                    self.scanning = True
                    index.refresh(Memory(self.root), scan=True)
                    self.scans += 1
                    due = index.SCAN_SECONDS
                if due is not None:
                    wait = due - LEAD
            except Exception:
                traceback.print_exc(file=sys.stderr)
            finally:
                self.scanning = False
            self.nudged.wait(wait)
            self.nudged.clear()
