"""Why a file tool could not open its target, in words the model can act on.

The confined walk (`confined_file.py`) opens every component with `O_NOFOLLOW`, so a symlink where the
checked path had none makes an open fail, and that failure is a race: trying again may work. Every other
refusal is the file system's answer and stays the same on a retry: permission denied, a file where a
directory should be, a symlink loop the check could not resolve. Those are reported as what they are.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from strata_core.tool.contract import ToolFailure

_REASONS = {
    errno.EACCES: (
        "permission denied (the file's or a parent directory's permissions refuse the user Strata runs as; "
        "trying again will not help until they change)"
    ),
    errno.ELOOP: "a symbolic link on its path leads back to itself (too many levels of symbolic links)",
    errno.EROFS: "the file system it is on is read-only",
}
_REASONS[errno.EPERM] = _REASONS[errno.EACCES]


def cannot(verb: str, path: Path, error: OSError) -> ToolFailure:
    """The failure for an open (or lstat, mkdir) of `path` the OS refused for a lasting reason."""
    reason = _REASONS.get(error.errno or 0) or _lowered(error.strerror or str(error))
    return ToolFailure(f"Cannot {verb} {path}: {reason}. Nothing was read or written.")


def not_a_directory(verb: str, path: Path, component: Path) -> ToolFailure:
    return ToolFailure(f"Cannot {verb} {path}: {component} is not a directory. Nothing was read or written.")


def _lowered(text: str) -> str:
    return text[:1].lower() + text[1:]


def lstat_at(parent: int, name: str) -> os.stat_result | None:
    """`name` in the directory `parent`, not followed if a symlink; None when it cannot be looked at."""
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return None


def loops(parent: int, name: str) -> bool:
    """Whether `name` in `parent` is a symlink that cannot be followed to an end (a loop: `a -> b -> a`).

    Such a link is still there from the check (resolving it failed the same way), so it is no race.
    """
    try:
        os.stat(name, dir_fd=parent)
    except OSError as error:
        return error.errno == errno.ELOOP
    return False


def is_link(found: os.stat_result | None) -> bool:
    return found is not None and stat.S_ISLNK(found.st_mode)
