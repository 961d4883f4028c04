"""Process lifetime without a PID namespace: a small reaper that outlives the command by nothing.

Where no sandbox holds the command, it runs under `python -c REAPER_SCRIPT argv...`: the reaper marks itself
a child subreaper (prctl), so every process the command starts and then disowns (`cmd &` after the shell
exits, `nohup`, `setsid`, a double fork) is re-parented to it rather than to init. When the command ends, or
the reaper is told to stop (SIGTERM, SIGINT, SIGHUP), it kills its children with SIGKILL until none is left,
their orphans included, and exits with the command's status. Inside bubblewrap the PID namespace does this.

Run as root, the reaper also drops `CAP_SYS_PTRACE`, `CAP_SYS_ADMIN` and `CAP_PERFMON` from its bounding set
before it starts the command, so the command never holds them: with any of them, root still reads the
environment of a process that is not dumpable (Strata, see `undumpable.py`). As another user the drop fails
(no `CAP_SETPCAP`), harmlessly: there is nothing to drop.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

REAPER_SCRIPT = r"""
import ctypes, os, signal, sys
PR_SET_CHILD_SUBREAPER, PR_CAPBSET_DROP = 36, 24
CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON = 19, 21, 38
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
for capability in (CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON):
    libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
me = os.getpid()

def children():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(name))
    return found

def sweep():
    while True:
        for pid in children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return

def stop(signum, frame):
    sweep()
    os._exit(128 + signum)

for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(signum, stop)
shell = os.fork()
if shell == 0:
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as error:
        print(f"cannot run {sys.argv[1]}: {error}", file=sys.stderr)
    os._exit(127)
while True:
    pid, status = os.waitpid(-1, 0)
    if pid == shell:
        break
sweep()
os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
"""


def reaped_argv(argv: Sequence[str]) -> list[str]:
    """`argv` run under the reaper (`-I -S`: no site packages, no user paths: ~15 ms of start-up); as it is
    where the reaper cannot work (not Linux, or an embedding interpreter with no runnable `sys.executable`):
    the process group is then all that ends with the call."""
    if not sys.platform.startswith("linux") or not sys.executable or not os.access(sys.executable, os.X_OK):
        return list(argv)
    return [sys.executable, "-I", "-S", "-c", REAPER_SCRIPT, *argv]
