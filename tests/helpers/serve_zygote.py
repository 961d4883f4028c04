"""The process `serve_fork` forks `strata serve` processes from: it imports what the command imports, once,
then forks a child for each request and tells the requester the child's pid and, later, its exit code.

Run as `python serve_zygote.py DIRECTORY`, in that directory (which it owns: it is its home too); it listens on
`DIRECTORY/socket` (a Unix SOCK_SEQPACKET socket) and ends when its standard input reaches end of file (the
pytest worker that started it is done, or gone), taking its children and the directory with it.
A request is one message: JSON `{"args": [...], "cwd": "...", "env": {...}}` with one file descriptor attached,
the child's stdout and stderr. The answer is the child's pid, then its exit code as `subprocess` reports it
(negative for a signal), each a decimal line on the same connection.

The child is what a fresh `strata ARGS` process would be from its first line of `main`: its own session (as
`start_new_session=True`), the request's working directory and exactly its environment, stdin `/dev/null`,
`sys.argv` as the console script's, and `strata_cli.main.main` run to its `os._exit`. What it does not repeat
is Python's start-up and the imports, which are the same for every server the tests start.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import socket
import sys
import threading
from pathlib import Path

MAX_REQUEST = 1 << 20
MAX_FD = os.sysconf("SC_OPEN_MAX")
STRATA = Path(sys.executable).with_name("strata")


def preload() -> None:
    """What `strata serve` imports before it reads its options, imported the way it imports it."""
    from strata_cli.lean_start import heavy_imports

    with heavy_imports():
        import anyio  # noqa: F401
        import uvicorn  # noqa: F401

        import strata_cli.commands.serve
        import strata_cli.main  # noqa: F401
        from strata_cli.app import build_container  # noqa: F401
        from strata_cli.serve_session import serve_project  # noqa: F401
        from strata_server import ServerSettings  # noqa: F401


def child(args: list[str], cwd: str, env: dict[str, str], output: int) -> None:
    """Become `strata ARGS` in `cwd` with exactly `env`, writing to `output`; never returns."""
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.closerange(3, MAX_FD)  # the zygote's sockets, its other children's pidfds: a new process has none
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = [str(STRATA), *args]
        from strata_cli.main import main

        main(args)
    except BaseException as error:  # a child must never return into the zygote's loop
        os.write(2, f"serve_zygote: the child failed: {error!r}\n".encode())
    finally:
        os._exit(70)


class Zygote:
    """The loop: a request forks a child, a child's exit is reported to its requester, end of input ends all."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(str(directory / "socket"))
        self.listener.listen(16)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(sys.stdin, selectors.EVENT_READ, "parent")
        self.children: dict[int, socket.socket] = {}  # pid -> the connection that asked for it

    def run(self) -> None:
        print("ready", flush=True)
        while True:
            for key, _ in self.selector.select():
                if key.data == "parent":
                    if not os.read(sys.stdin.fileno(), 1 << 16):
                        self.leave()
                        return
                elif key.data == "accept":
                    self.fork()
                else:
                    self.reap(key)

    def fork(self) -> None:
        connection, _ = self.listener.accept()
        message, fds, _, _ = socket.recv_fds(connection, MAX_REQUEST, 1)
        request = json.loads(message)
        if threading.active_count() != 1:  # forking a process with threads could copy a held lock
            raise RuntimeError("the zygote started a thread; it cannot fork safely")
        pid = os.fork()
        if pid == 0:
            child(request["args"], request["cwd"], request["env"], fds[0])
        os.close(fds[0])
        connection.sendall(f"{pid}\n".encode())
        self.children[pid] = connection
        self.selector.register(os.pidfd_open(pid), selectors.EVENT_READ, pid)

    def reap(self, exited: selectors.SelectorKey) -> None:
        pid = exited.data
        self.selector.unregister(exited.fileobj)
        os.close(exited.fd)
        _, status = os.waitpid(pid, 0)
        connection = self.children.pop(pid)
        with contextlib.suppress(OSError):  # the requester left without waiting
            connection.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
        connection.close()

    def leave(self) -> None:
        """The pytest worker is gone: so is every server it left running, and the zygote's directory."""
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        shutil.rmtree(self.directory, ignore_errors=True)


if __name__ == "__main__":
    preload()
    Zygote(Path(sys.argv[1])).run()
