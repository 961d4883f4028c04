"""Running a shell command for the bash tool: its own process group, combined output, a deadline.

The command (`bash -c`, wrapped by the sandbox) runs in a new session, so a timeout or an abort can end it
*and* everything it started (SIGTERM to the group, SIGKILL after a grace period); when it ends by itself the
group is killed too. What left the group (`setsid`) is ended by the sandbox's PID namespace or the reaper.
Output is streamed: the caller sees progress after every chunk, memory holds only the recent tail, and once
the output outgrows the byte limit all of it goes to a file under `tool-output/` as it arrives.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import signal
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

import anyio
from anyio.abc import Process
from attrs import define, field, frozen

from strata_core.tool.truncation import Truncation

KILL_GRACE_SECONDS = 3.0
DRAIN_SECONDS = 0.25
"""After the shell exits, how long to wait for output still in the pipe (a background child may hold it)."""
PREVIEW_CHARS = 30_000


def preview(text: str) -> str:
    """The end of the output, for live display (metadata), at most 30,000 characters."""
    return text if len(text) <= PREVIEW_CHARS else "...\n\n" + text[-PREVIEW_CHARS:]


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


@frozen
class Tail:
    text: str
    cut: bool


def tail(text: str, max_lines: int, max_bytes: int) -> Tail:
    """The last whole lines within both limits; a single last line too long for the bytes keeps its end."""
    lines = text.split("\n")
    if len(lines) <= max_lines and len(_utf8(text)) <= max_bytes:
        return Tail(text, False)
    kept: deque[str] = deque()
    used = 0
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        size = len(_utf8(line)) + (1 if kept else 0)
        if used + size > max_bytes:
            if not kept:
                raw = _utf8(line)[-max_bytes:]
                kept.appendleft(raw.decode("utf-8", errors="ignore"))
            break
        kept.appendleft(line)
        used += size
    return Tail("\n".join(kept), True)


@define
class OutputCollector:
    """Accumulates a command's output: a bounded recent window, a live preview, a spill file when large."""

    truncation: Truncation
    on_progress: Callable[[str], None]
    chunks: deque[tuple[str, int]] = field(factory=deque)
    window_bytes: int = 0
    live: str = ""
    saved: Path | None = None
    cut: bool = False
    _pending: list[str] = field(factory=list)
    _pending_bytes: int = 0
    _spill: IO[str] | None = None

    def feed(self, text: str) -> None:
        if not text:
            return
        size = len(_utf8(text))
        self.chunks.append((text, size))
        self.window_bytes += size
        # Keep twice the byte limit in memory: enough for the final tail, bounded however much is printed.
        while self.window_bytes > 2 * self.truncation.max_bytes and len(self.chunks) > 1:
            _, dropped = self.chunks.popleft()
            self.window_bytes -= dropped
            self.cut = True
        self.live = preview(self.live + text)
        self._save(text, size)
        self.on_progress(self.live)

    def _save(self, text: str, size: int) -> None:
        if self._spill is not None:
            self._spill.write(text)
            return
        self._pending.append(text)
        self._pending_bytes += size
        if self._pending_bytes > self.truncation.max_bytes:
            self.saved = self.truncation.write_sync("".join(self._pending))
            self._spill = self.saved.open("a", encoding="utf-8", errors="surrogateescape")
            self._pending.clear()
            self.cut = True

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.chunks)

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None


@frozen
class ShellExit:
    code: int | None
    """`None` when the command was stopped (timeout)."""
    timed_out: bool


def _signal_group(process: Process, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc; empty where there is none)."""
    found: list[int] = []
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return found
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


async def stop_group(process: Process, grace: float = KILL_GRACE_SECONDS) -> None:
    """End the command and all it started, and return only once they are gone.

    First the started process's own children get SIGKILL: the sandbox's init (its PID namespace dies with it,
    and bwrap exits only once the namespace is empty) or, under the reaper, the shell (the reaper then ends
    what is left and exits). Then, as before, SIGTERM to the group, a grace period, SIGKILL."""
    for child in child_pids(process.pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)
    with anyio.move_on_after(grace):
        await process.wait()
    _signal_group(process, signal.SIGTERM)
    with anyio.move_on_after(grace):
        await process.wait()
    _signal_group(process, signal.SIGKILL)
    await process.wait()


async def _pump(process: Process, collector: OutputCollector, done: anyio.Event) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    assert process.stdout is not None
    try:
        async for chunk in process.stdout:
            collector.feed(decoder.decode(chunk))
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    collector.feed(decoder.decode(b"", final=True))
    done.set()


async def run_shell(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    time_limit: float,
    collector: OutputCollector,
    pass_fds: Sequence[int] = (),
) -> ShellExit:
    """Run `argv` (given the descriptors `pass_fds`) until it exits or `time_limit` seconds pass.

    Cancellation stops the whole process group, then propagates.
    """
    process = await anyio.open_process(
        list(argv),
        pass_fds=pass_fds,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        async with anyio.create_task_group() as group:
            drained = anyio.Event()
            group.start_soon(_pump, process, collector, drained)
            with anyio.move_on_after(time_limit) as deadline:
                code: int | None = await process.wait()
            if deadline.cancelled_caught:
                code = None
                await stop_group(process)
            else:
                _signal_group(process, signal.SIGKILL)  # `cmd &` left in the group ends with the call
            with anyio.move_on_after(DRAIN_SECONDS):
                await drained.wait()
            group.cancel_scope.cancel()
        return ShellExit(code, deadline.cancelled_caught)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await stop_group(process)
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
        collector.close()
