"""The last lines a local MCP server wrote to its stderr, so a server that fails can be said to have said why.

A server's stderr is its own log (OpenCode keeps it off the terminal too), but a server that cannot start
usually explains itself there and exits; the SDK then reports only "Connection closed". `StderrTail` is a pipe
the server gets as its stderr, read as it comes in, keeping only the last `TAIL_LINES` lines (each cut to
`LINE_CHARS`), so neither a chatty nor a hostile server costs more than that.
"""

from __future__ import annotations

import os
from collections import deque
from typing import TextIO

import anyio

TAIL_LINES = 5
LINE_CHARS = 300
CHUNK = 65536


class StderrTail:
    """`writer` is given to the server as its stderr; `run` reads the other end until the server closes it."""

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        self._read_fd = read_fd
        self.writer: TextIO = os.fdopen(write_fd, "w")
        self._lines: deque[str] = deque(maxlen=TAIL_LINES)
        self._partial = b""
        self.done = anyio.Event()

    def close_writer(self) -> None:
        """Our copy of the write end, closed once the server holds its own: its exit then ends `run`."""
        self.writer.close()

    async def run(self) -> None:
        try:
            while chunk := await self._read():
                self._take(chunk)
        finally:
            os.close(self._read_fd)
            self._take(b"\n")
            self.done.set()

    async def _read(self) -> bytes:
        while True:
            await anyio.wait_readable(self._read_fd)
            try:
                return os.read(self._read_fd, CHUNK)
            except BlockingIOError:
                continue

    def _take(self, chunk: bytes) -> None:
        *complete, rest = (self._partial + chunk).split(b"\n")
        for line in complete:
            if text := _printable(line[:LINE_CHARS]):
                self._lines.append(text)
        self._partial = rest[:LINE_CHARS]  # a line without an end is kept only up to what is shown

    def text(self) -> str:
        """The last lines, joined by " | " (a failure reason is one line)."""
        return " | ".join(self._lines)


def _printable(line: bytes) -> str:
    # The reason reaches a terminal: a server's escape sequences must not.
    text = line.decode("utf-8", errors="replace")
    return "".join(char if char.isprintable() else "?" for char in text).strip()
