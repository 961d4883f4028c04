"""A pseudo-terminal read like a screen, for driving the interactive mode with pexpect."""

from __future__ import annotations

import re
import time

import pexpect

CURSOR_POSITION_REQUEST = "\x1b[6n"
# prompt_toolkit draws the bottom toolbar once the terminal has told it where the cursor is.
CURSOR_POSITION_ANSWER = "\x1b[1;1R"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
WHITESPACE = re.compile(r"\s+")


class Terminal:
    """A pexpect child read like a screen: colours and cursor moves dropped, cursor-position requests answered
    the way a terminal emulator does."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.pending = ""

    def expect(self, text: str, timeout: float = 20) -> str:
        """Wait for `text`, whitespace ignored (a redraw skips unchanged cells, spaces included, with cursor
        moves); returns what came before it, and later calls see only what came after it."""
        text = WHITESPACE.sub("", text)
        deadline = time.monotonic() + timeout
        while text not in self.pending:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear; the terminal showed:\n{self.pending[-2000:]}")
            try:
                chunk = self.child.read_nonblocking(size=4096, timeout=0.2)
            except pexpect.TIMEOUT:
                continue
            if CURSOR_POSITION_REQUEST in chunk:
                self.child.send(CURSOR_POSITION_ANSWER)
            self.pending += WHITESPACE.sub("", ANSI.sub("", chunk.replace(CURSOR_POSITION_REQUEST, "")))
        before, _, self.pending = self.pending.partition(text)
        return before

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def toolbar_shows(self, text: str) -> None:
        """Wait for `text` in a fresh drawing of the screen: Ctrl-L makes prompt_toolkit redraw everything,
        where an ordinary update rewrites only the cells that changed (and the bytes would not spell `text`)."""
        self.send("\x0c")
        self.expect(text)
