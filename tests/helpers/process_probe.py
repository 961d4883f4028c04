"""Looking for processes on the host by an argument only they have, whatever PID namespace started them."""

from __future__ import annotations

import os
from pathlib import Path


def processes_with_argument(marker: str) -> list[int]:
    """PIDs (host namespace) of live, non-zombie processes with `marker` as one of their arguments."""
    found: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in argv and state != b"Z":
            found.append(int(name))
    return found
