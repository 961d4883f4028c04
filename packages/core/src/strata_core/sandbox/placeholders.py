"""Placeholders: empty files created where a protected path does not exist yet, so a bind mount can cover it.

A bind mount needs something to mount over; bwrap would create it itself, but then nothing could tell it
from a file the user made meanwhile. Strata creates it (exclusively) and removes only what it created, once
the last command using it has ended: parallel commands share one placeholder, since removing a mount point
in this namespace detaches the mount in every other one (Linux >= 3.18), which would unprotect the path
for a command still running.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

_lock = threading.Lock()
_users: Counter[Path] = Counter()
_made: set[Path] = set()
"""Every path this process made a placeholder at, in use or not (a walk may have seen one that is gone)."""


def claim(paths: Iterable[Path]) -> list[Path]:
    """Create a placeholder at each of `paths` that is missing, or join the one this process already made
    there; returns those to `release`. Deciding under the lock matters: a command that took another's
    placeholder for a user's file would not hold it, and its removal would unprotect that command."""
    claimed: list[Path] = []
    with _lock:
        for path in paths:
            if _users[path] == 0 and (os.path.lexists(path) or not _create(path)):
                continue
            _users[path] += 1
            claimed.append(path)
    return claimed


def release(paths: Iterable[Path]) -> None:
    """Give back placeholders from `claim`; the last user removes the file if it is still an empty one."""
    with _lock:
        for path in paths:
            _users[path] -= 1
            if _users[path] > 0:
                continue
            del _users[path]
            try:
                if path.is_file() and not path.is_symlink() and path.stat().st_size == 0:
                    path.unlink()
            except OSError:
                pass


def in_use() -> set[Path]:
    """The placeholders some command of this process still uses (they are not what a command made)."""
    with _lock:
        return set(_users)


def ours(path: Path) -> bool:
    """Whether `path` is (or was, and is gone again) one of this process's placeholders, not something a
    command made: a parallel command's placeholder can come and go while a walk looks at the project."""
    with _lock:
        if path in _users:
            return True
        if path not in _made:
            return False
    try:
        found = path.lstat()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size == 0


def _create(path: Path) -> bool:
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o444)
    except OSError:
        return False  # it exists (the user's, or a race): it is bound over as it is, and never removed
    os.close(descriptor)
    _made.add(path)
    return True
