"""Looking for processes on the host by an argument only they have, whatever PID namespace started them."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def processes_with_argument(marker: str) -> list[int]:
    """PIDs (host namespace) of live, non-zombie processes with `marker` as one of their arguments."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in argv and state != b"Z":
            found.append(int(entry.name))
    return found


def end_stranded_sandboxes(base: Path) -> None:
    """SIGKILL every `bwrap` still running in a project under `base`.

    A kill that lands while a shell's bwrap sets itself up can leave bwrap's inner process waiting forever, a
    moment after the kill: its outer process dies with Strata, but the inner one asks for `--die-with-parent`'s
    signal only once it runs, too late (bubblewrap's own race, containers/bubblewrap#633, open; seen with
    0.8.0). The tests that kill Strata mid-call check the session's recovery, not this, and such a process must
    not outlive the suite.
    """
    for entry in Path("/proc").iterdir():
        try:
            if (entry / "comm").read_text().strip() == "bwrap" and base in (entry / "cwd").readlink().parents:
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue  # not a process, gone meanwhile, or not ours to read
