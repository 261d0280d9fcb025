"""The MCP server's stdio, read and written by the event loop itself.

The SDK's stdio transport reads each line and writes each answer through a worker thread
(``anyio.wrap_file``): three hand-offs between threads a request, about 0.3 ms each on two
busy cores, which was half of what a ``ping`` cost. Where stdin and stdout are pipes or
sockets (an agent's child process), ``pipes`` hands the SDK two ends the event loop serves
without threads; anything else (a file, a terminal) is left to the SDK. As the SDK does,
the wire is kept on private descriptors while serving: fd 0 reads the null device and fd 1
writes to stderr, so a hook's stray output never lands in the protocol.
"""

import asyncio
import os
import stat
from contextlib import asynccontextmanager

LIMIT = 1 << 30         # the longest line read (a persist of a long conversation is one line)


class Lines:
    """The requests, a line at a time (``async for line in ...``), as text."""

    def __init__(self, reader: asyncio.StreamReader):
        self.reader = reader

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class Sink:
    """The answers: ``write`` buffers, ``flush`` waits until the pipe has taken them."""

    def __init__(self, writer: asyncio.StreamWriter):
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


def _pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def pipes():
    """``(Lines, Sink)`` over the process's stdin and stdout, or None where they are not both
    pipes or sockets (a terminal's descriptor must not be made non-blocking under its shell)."""
    if not (_pipe(0) and _pipe(1)):
        yield None
        return
    loop = asyncio.get_running_loop()
    saved = os.dup(0), os.dup(1)
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    transports = []
    try:
        reader = asyncio.StreamReader(limit=LIMIT)
        read_end, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                   os.fdopen(wire_in, "rb", buffering=0))
        transports.append(read_end)
        write_end, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(wire_out, "wb", buffering=0))
        transports.append(write_end)
        yield Lines(reader), Sink(asyncio.StreamWriter(write_end, protocol, None, loop))
    finally:
        for transport in transports:
            transport.close()
        for fd, kept in enumerate(saved):
            os.dup2(kept, fd)
            os.close(kept)
