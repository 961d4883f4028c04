"""Strata's own process closed to the commands it runs uncontained: `prctl(PR_SET_DUMPABLE, 0)` on Linux.

A command outside the sandbox runs as the same user as Strata, so without this `/proc/<Strata's pid>/environ`
(and `ps eww`, which reads it) shows Strata's environment, API keys included, though the command's own
environment was scrubbed. A process that is not dumpable has its `/proc` entries owned by root and refuses
ptrace-mode reads (environ, mem, fd links) to other processes of its user (to root too, once the reaper has
dropped the capabilities that override the check: `reaper.py`). It also writes no core dump and cannot be attached
to by a debugger of the same user: the price, paid only once a command or a server has run uncontained
(inside bubblewrap the private PID namespace hides Strata already).

What stays readable without a sandbox: the environment of every other process of the user, among them the
shell that started Strata (`/proc/<its pid>/environ`), which holds whatever keys were exported there.
"""

from __future__ import annotations

import sys

from strata_core.logging import get_logger

log = get_logger(__name__)

PR_SET_DUMPABLE = 4
STILL_READABLE = (
    "without a sandbox, commands still read other processes' environments, e.g. the shell that started "
    "Strata (/proc/<its pid>/environ); Strata's own is closed to them"
)
"""The one line `strata debug sandbox` and the README give about what no-sandbox containment leaves open."""

_done = False


def make_undumpable() -> None:
    """Mark this process not dumpable, once (later calls do nothing); a no-op off Linux. A kernel that
    refuses is logged, not raised: the command still runs, as it would have before."""
    global _done
    if _done or not sys.platform.startswith("linux"):
        return
    _done = True
    # Imported here: ctypes stays out of start-up for the runs that never start an uncontained command.
    import ctypes
    import os

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        log.warning("cannot close Strata's /proc to commands", error=os.strerror(ctypes.get_errno()))
