"""Hiding the project's `.env` files: an empty, read-only file bound over each, and how many that can be.

bwrap binds one path at a time and reads the whole mount table after each bind (to set its flags), so its
start grows with the square of the mounts: 250 masks take 0.14 s, 1,000 take 1.8 s, 2,000 take 7.9 s
(benchmarks/README.md, "Shell sandbox cost"). Up to `BWRAP_MASKS` masks bwrap binds them; beyond, bwrap
starts `MASKER_SCRIPT` (Strata's own Python, `-I -S`, ~15 ms) with `CAP_SYS_ADMIN` in the sandbox's mount
namespace: it binds every mask from a list on a descriptor (2,000 in 0.06 s, 20,000 in 0.3 s), drops every
capability (bounding set included) and execs the command, which can neither unmount a mask nor get the
capability back. Past `MAX_SECRET_FILES` (or what the kernel's `fs.mount-max` leaves room for) the command
does not run: a sandbox that could not hide every secret must not look as if it had.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from strata_core.errors import StrataError

BWRAP_MASKS = 100
"""Up to this many masks bwrap's own binds cost less than the masker's Python start-up (~15 ms)."""
MAX_SECRET_FILES = 20_000
"""The most `.env` files a command starts with hidden: 0.3 s of masking; a project with more is refused."""
MOUNT_MAX = Path("/proc/sys/fs/mount-max")
MOUNT_HEADROOM = 1_000
"""Mounts a namespace needs besides the masks (system dirs, toolchains, protected paths)."""

MASKER_SCRIPT = r"""
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 1, 2, 4, 32, 4096
listed, empty = int(sys.argv[1]), os.fsencode(sys.argv[2])
data = bytearray()
while chunk := os.read(listed, 1 << 20):
    data += chunk
os.close(listed)

def fail(what, target):
    code = ctypes.get_errno()
    print(f"strata sandbox: cannot {what} {os.fsdecode(target)}: {os.strerror(code)}", file=sys.stderr)
    os._exit(126)

for target in bytes(data).split(b"\0"):
    if not target:
        continue
    if libc.mount(empty, target, None, MS_BIND, None) != 0:
        if ctypes.get_errno() == errno.ENOENT:
            continue  # removed since it was found: nothing left to hide
        fail("hide", target)
    if libc.mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None) != 0:
        fail("make read-only the mask of", target)

class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

class Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
for cap in range(64):
    libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
if libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()) != 0:
    fail("drop the capabilities of", b"the command")
try:
    os.execvp(sys.argv[3], sys.argv[3:])
except OSError as error:
    print(f"cannot run {sys.argv[3]}: {error}", file=sys.stderr)
os._exit(127)
"""


class TooManySecretFilesError(StrataError):
    """More `.env` files in the project than a sandbox can hide: the command is not run."""


def secret_file_cap(wanted: int = MAX_SECRET_FILES) -> int:
    """`wanted`, or less where the kernel's `fs.mount-max` would not leave room for that many mounts."""
    try:
        mount_max = int(MOUNT_MAX.read_text())
    except (OSError, ValueError):
        return wanted
    return max(0, min(wanted, mount_max - MOUNT_HEADROOM))


def check_secret_count(secrets: Sequence[Path], root: Path, cap: int) -> None:
    """Fail closed: refuse a project whose secret files cannot all be hidden."""
    if len(secrets) <= cap:
        return
    raise TooManySecretFilesError(
        f"{root} holds {len(secrets):,} secret files (.env, *.env.*), more than the {cap:,} the sandbox can "
        "hide from a command, so the command was not run: they would have been readable. Remove or move the "
        "ones not needed (test fixtures, vendored copies), or, if commands may read them, set "
        '"sandbox": {"mode": "danger-full-access"} in strata.json or pass --sandbox danger-full-access.'
    )


def masker_command(listed_fd: int, empty_file: Path, command: Sequence[str]) -> list[str]:
    """`command`, started by the masker, which first hides the paths listed (NUL-separated) on `listed_fd`."""
    return [sys.executable, "-I", "-S", "-c", MASKER_SCRIPT, str(listed_fd), str(empty_file), *command]
