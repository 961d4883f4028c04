"""`strata` run inside the test process, for the end-to-end tests that check what a command prints and leaves
behind rather than the process itself (a `strata` process costs ~0.36 s of CPU, most of it imports that the
test process has done once already).

The command sees what a subprocess of `cli_harness.Cli` sees: exactly the given environment in `os.environ`,
the given working directory, `sys.argv`, a pipe-like stdin (not a terminal) holding the given input, and
stdout and stderr that are not terminals and are decoded as `subprocess.run(text=True)` decodes them. It runs
through `strata_cli.main.main`, the console script's entry point, so the exit code and error reports are the
real ones; only its final `os._exit` is caught.

A `strata` process changes state that lasts for the rest of the process, so everything it may change is saved
and put back afterwards: the environment (`--strict`, `--sandbox`, `--database` set variables), the working
directory, the standard streams, the garbage collector (`lean_start.settle_gc` freezes the heap and raises the
young threshold), logging (handlers, levels, and `log_setup`'s once-per-process flag), signal handlers, the
loopback-only guard of `strata_core.http` (off in a real `strata`, on in the suite), and the process's
dumpable flag (`sandbox.undumpable`, set once a command runs uncontained). Warnings and a thread's uncaught
exception go to the command's stderr under Python's default filters, as in a process, not to pytest.

Not for tests of the process itself: start-up imports, signals, kills, exit without teardown, memory limits,
terminals, concurrency between processes. Those keep `subprocess` (or pexpect). Only the main thread can run a
command in-process (anyio's signal receiver needs it); from another thread the caller falls back to a process.
"""

from __future__ import annotations

import gc
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGCHLD)


class _Exited(BaseException):
    """Raised in place of `os._exit` at the end of `strata_cli.main.main`."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def run_strata(
    strata: Path, args: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin: str
) -> subprocess.CompletedProcess[str]:
    """`strata ARGS` in this process; the result as `subprocess.run(..., capture_output=True, text=True)`."""
    from strata_cli import main as entry

    out, err = _pipe(), _pipe()
    with ExitStack() as restore:
        restore.enter_context(_process_state_kept())
        restore.enter_context(_environment(env))
        restore.enter_context(_working_directory(cwd))
        restore.enter_context(_standard_streams(_pipe(stdin.encode("utf-8")), out, err))
        restore.enter_context(_attribute(sys, "argv", [str(strata), *args]))
        restore.enter_context(_attribute(entry, "_exit", _raise_exit))
        restore.enter_context(_warnings_as_in_a_process())
        code = _exit_code(lambda: entry.main(list(args)))
    return subprocess.CompletedProcess([str(strata), *args], code, _text(out), _text(err))


def _exit_code(call: Any) -> int:
    """The code the process would have ended with: `main`'s own, or the interpreter's for a `SystemExit`."""
    try:
        call()
    except _Exited as exited:
        return exited.code
    except SystemExit as leaving:  # what the interpreter does with one that reaches it
        if leaving.code is None or isinstance(leaving.code, int):
            return leaving.code or 0
        print(leaving.code, file=sys.stderr)
        return 1
    raise AssertionError("strata_cli.main.main returned without exiting")


def _raise_exit(code: int) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    raise _Exited(code)


def _pipe(data: bytes = b"") -> io.TextIOWrapper:
    """A text stream as a `strata` process gets one from a pipe under LANG=C.UTF-8 (no terminal)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline=None)


def _text(stream: io.TextIOWrapper) -> str:
    """What `subprocess.run(text=True)` makes of the bytes written: strict UTF-8, universal newlines."""
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return io.TextIOWrapper(io.BytesIO(raw.getvalue()), encoding="utf-8", newline=None).read()


@contextmanager
def _attribute(owner: Any, name: str, value: Any) -> Iterator[None]:
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


@contextmanager
def _warnings_as_in_a_process() -> Iterator[None]:
    """Python's default warning filters, warnings and a thread's uncaught exception printed on (the command's)
    stderr: pytest's own capture of them would hide from a test what a `strata` process prints."""
    with warnings.catch_warnings(), _attribute(threading, "excepthook", threading.__excepthook__):
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        warnings.showwarning = _show_warning
        yield


def _show_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None
) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _working_directory(cwd: Path) -> Iterator[None]:
    saved = Path.cwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextmanager
def _standard_streams(stdin: io.TextIOWrapper, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


@contextmanager
def _process_state_kept() -> Iterator[None]:
    """Garbage collector, logging, signal handlers, the loopback guard and the dumpable flag, as they were."""
    from strata_cli import log_setup
    from strata_core import http
    from strata_core.sandbox import undumpable

    gc_enabled, gc_threshold, frozen = gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()
    loggers = [logging.getLogger(), *(logging.getLogger(name) for name in log_setup.STRATA_LOGGERS)]
    logger_state = [(logger, logger.level, list(logger.handlers), logger.propagate) for logger in loggers]
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    configured, loopback_only, undumpable_done = log_setup._configured, http._loopback_only, undumpable._done
    log_setup._configured = False
    http.set_loopback_only(False)  # a `strata` process has no such guard; the subprocess never had it
    try:
        yield
    finally:
        http.set_loopback_only(loopback_only)
        log_setup._configured = configured
        for logger, level, kept, propagate in logger_state:
            for handler in [h for h in logger.handlers if h not in kept]:
                logger.removeHandler(handler)
                handler.close()
            logger.handlers[:] = kept
            logger.setLevel(level)
            logger.propagate = propagate
        for number, saved in handlers.items():
            if saved is not None and signal.getsignal(number) is not saved:
                signal.signal(number, saved)
        if undumpable._done and not undumpable_done:
            _make_dumpable_again()
            undumpable._done = False
        if gc.get_freeze_count() and not frozen:
            gc.unfreeze()
        gc.set_threshold(*gc_threshold)
        (gc.enable if gc_enabled else gc.disable)()


def _make_dumpable_again() -> None:
    import ctypes

    from strata_core.sandbox.undumpable import PR_SET_DUMPABLE

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
