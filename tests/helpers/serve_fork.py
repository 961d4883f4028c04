"""`strata serve` for the server tests, forked from a process that has imported the server already.

A `strata serve` process spends ~0.2 s of CPU on Python's start-up and its imports before it listens, and the
server tests start ~100 of them. Each pytest worker starts one zygote (`serve_zygote.py`) the first time a test
asks for a server; the zygote imports what `strata serve` imports and forks a child per server, which runs
`strata_cli.main.main` from its first line in the test's directory and environment (see the zygote's
docstring for what the child is given). `ForkedProcess` answers for it with the parts of `subprocess.Popen`
the tests use: `pid`, `stdout`, `poll`, `wait`, `send_signal`, `terminate`, `kill`, `returncode`.

What a forked server does not show: its own start-up (the process's imports and their time), which the tests
of that start in `tests/e2e_cli` and `tests/packaging` run as real processes; and its environment in
`/proc/<pid>/environ`, which holds what the zygote was started with (the server's `os.environ`, and so what its
own child processes get, is the test's). A test that reads that file starts a real process.
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

ZYGOTE = Path(__file__).with_name("serve_zygote.py")
START_TIMEOUT = 60.0


class ForkedProcess:
    """A `strata` process forked by the zygote: `subprocess.Popen`'s interface, as far as the tests use it."""

    def __init__(self, args: Sequence[str], connection: socket.socket, stdout: TextIO, pid: int) -> None:
        self.args = list(args)
        self.pid = pid
        self.stdout = stdout
        self.returncode: int | None = None
        self._connection = connection
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None

    def wait(self, timeout: float | None = None) -> int:
        """The exit code (negative: the signal that ended it), as the zygote reports it once it has reaped it."""
        with self._lock:
            if self.returncode is None:
                self._connection.settimeout(timeout)
                try:
                    line = _read_line(self._connection)
                except (TimeoutError, BlockingIOError):  # BlockingIOError: poll()'s timeout of 0
                    raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
                self.returncode = int(line)
                self._connection.close()
            return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def fork_strata(args: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> ForkedProcess:
    """`strata ARGS` in `cwd` with exactly `env`, in a session of its own, its stdout and stderr one pipe."""
    readable, writable = os.pipe()
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(str(_zygote().socket_path))
        request = {"args": list(args), "cwd": str(cwd), "env": dict(env)}
        socket.send_fds(connection, [json.dumps(request).encode()], [writable])
        connection.settimeout(START_TIMEOUT)
        pid = int(_read_line(connection))
    except BaseException:
        connection.close()
        os.close(readable)
        raise
    finally:
        os.close(writable)
    stdout = open(readable, encoding=locale.getpreferredencoding(False))  # noqa: SIM115  # as Popen(text=True)
    return ForkedProcess(args, connection, stdout, pid)


def _read_line(connection: socket.socket) -> str:
    """One decimal line from the zygote (each is a message of its own on the SOCK_SEQPACKET socket)."""
    message = connection.recv(64)
    if not message:
        raise RuntimeError("the serve zygote went away before it answered")
    return message.decode().strip()


class _Zygote:
    """This worker's zygote, started in a directory of its own with a minimal environment (each server gets the
    test's), ready once it has imported the server."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="strata-serve-zygote-"))
        self.socket_path = self.directory / "socket"
        home = self.directory / "home"
        home.mkdir()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
        self.process = subprocess.Popen(
            [sys.executable, str(ZYGOTE), str(self.directory)],
            cwd=self.directory,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready = self.process.stdout.readline()
        if ready.strip() != "ready":
            self.process.kill()
            raise RuntimeError(
                f"the serve zygote did not start (it printed {ready!r}; its errors went to this worker's stderr)"
            )

    def close(self) -> None:
        """End the zygote: it kills any server still running and removes its directory (as it does when the
        worker ends without this, its standard input closing with the worker)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


_started: list[_Zygote] = []
_starting = threading.Lock()


def _zygote() -> _Zygote:
    with _starting:
        if not _started:
            _started.append(_Zygote())
            atexit.register(_started[0].close)
        return _started[0]
