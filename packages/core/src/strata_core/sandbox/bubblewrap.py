"""Bubblewrap (`bwrap`, Debian's `bubblewrap`): the mount, PID and network namespaces a contained command runs in.

The command's file system is built from nothing rather than by hiding parts of `/`: system directories
read-only, the toolchains on PATH and Strata's own Python read-only (`toolchains.py`), a private `/tmp` and an
empty private home, the writable root (the worktree) and Strata's tool-output and temp dirs bound read-write
(read-only in `read-only` mode), the protected paths read-only over that, and an empty file over every
`.env`-style file (`masks.py`). bwrap reads its options from a memfd (`--args`): argv's limits (2 MiB in all,
on Linux) do not cap how many mounts a layout holds.
Everything else (other projects, the rest of the home directory with its keys, sibling directories of the
project) does not exist inside. `--unshare-pid` gives the command its own PID namespace: it sees no Strata
process, and when the shell ends bwrap's init ends every process still in it. `--die-with-parent` ends the
namespace when Strata's end of it is killed (a timeout, an abort).
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from attrs import frozen

from strata_core.sandbox.masks import BWRAP_MASKS, masker_command

SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/var", "/nix", "/snap")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""On merged-/usr systems these are symlinks into /usr, recreated as such; elsewhere they are bound."""
MASKED_SYSTEM_FILES = ("/etc/shadow", "/etc/gshadow")
"""Readable by root, who owns them; a command run as root has no business with the password hashes."""
PROBE_TIMEOUT_SECONDS = 10.0


@frozen
class Mount:
    """One bind of `source` at `target` (the same path unless a mask is bound)."""

    source: Path
    target: Path
    writable: bool = False


@frozen
class Layout:
    """What a contained command's file system holds, in mount order (later mounts cover earlier ones)."""

    mounts: tuple[Mount, ...]
    tmpfs: tuple[Path, ...]
    """Private, empty, writable dirs (`/tmp`, the home directory)."""
    network: bool
    whole_root: bool = False
    """The host's file system read-only beneath every other mount (a server's layout: it needs its runtime
    and packages where they are), instead of the system dirs alone."""
    masks: tuple[Path, ...] = ()
    """Files hidden by the empty file bound over them (the project's `.env` files), after every mount."""


def system_arguments() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_DIRS:
        args += ["--ro-bind-try", name, name]
    for name in SYSTEM_LINKS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return args


@frozen
class BwrapCommand:
    """bwrap's argv, its options read from a memfd (`--args`) so that no argv limit caps the mounts, and the
    descriptors it reads: pass them to it (`pass_fds`) and close them once it has started."""

    argv: tuple[str, ...]
    descriptors: tuple[int, ...]


def bwrap_command(
    bwrap: str,
    layout: Layout,
    empty_file: Path,
    cwd: Path,
    command: Sequence[str],
    *,
    info_fd: int | None = None,
    inherited: bool = True,
    masker_above: int = BWRAP_MASKS,
) -> BwrapCommand:
    """The `bwrap --args FD -- command` to start for `layout`; with `info_fd`, bwrap writes there (as JSON)
    the host PID of the namespace's init. Not `inherited` (a launcher that passes no descriptors, as the MCP
    SDK's), `/bin/sh` reopens the memfds from `/proc` onto descriptors 3 and 4 and execs bwrap. Past
    `masker_above` masks the masker binds them (`masks.py`)."""
    many = len(layout.masks) > masker_above
    options = _memfd("bwrap-args")
    listed = _memfd("bwrap-masks") if many else None
    opened = (options,) if listed is None else (options, listed)
    seen = opened if inherited else tuple(range(3, 3 + len(opened)))  # the numbers bwrap will see them at
    try:
        _write_all(options, bwrap_options(layout, empty_file, cwd, info_fd, masker=many))
        if listed is not None:
            _write_all(listed, [str(path) for path in layout.masks])
    except BaseException:
        for descriptor in opened:
            os.close(descriptor)
        raise
    inner = masker_command(seen[1], empty_file, command) if many else list(command)
    argv = [bwrap, "--args", str(seen[0]), "--", *inner]
    if not inherited:
        redirects = " ".join(f"{to}</proc/{os.getpid()}/fd/{fd}" for to, fd in zip(seen, opened, strict=True))
        argv = ["/bin/sh", "-c", f'exec "$@" {redirects}', "sh", *argv]
    return BwrapCommand(tuple(argv), opened)


def bwrap_options(
    layout: Layout, empty_file: Path, cwd: Path, info_fd: int | None = None, *, masker: bool = False
) -> list[str]:
    """bwrap's options for `layout`, masks included unless the `masker` (`masks.py`) binds them."""
    args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    args += ["--unshare-cgroup-try"]
    if not layout.network:
        args.append("--unshare-net")
    args += ["--ro-bind", "/", "/"] if layout.whole_root else system_arguments()
    args += ["--dev", "/dev", "--proc", "/proc"]
    for name in MASKED_SYSTEM_FILES:
        if Path(name).exists():
            args += ["--ro-bind", str(empty_file), name]
    for path in layout.tmpfs:
        args += ["--tmpfs", str(path)]
    args += _mount_arguments(layout.mounts)
    if masker:  # it binds the masks inside; the empty file must be there to bind from
        args += ["--ro-bind", str(empty_file), str(empty_file), "--cap-add", "CAP_SYS_ADMIN"]
    else:
        args += _mount_arguments(Mount(empty_file, path) for path in layout.masks)
    args += ["--chdir", str(cwd)]
    return args


def _memfd(name: str) -> int:
    return os.memfd_create(name, os.MFD_CLOEXEC)


def _write_all(descriptor: int, args: Sequence[str]) -> None:
    data = b"".join(os.fsencode(arg) + b"\0" for arg in args)
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
    os.lseek(descriptor, 0, os.SEEK_SET)


def _mount_arguments(mounts: Iterable[Mount]) -> list[str]:
    args: list[str] = []
    for mount in mounts:
        args += ["--bind-try" if mount.writable else "--ro-bind-try", str(mount.source), str(mount.target)]
    return args


@functools.cache
def probe(bwrap: str) -> str | None:
    """Why `bwrap` cannot contain a command here (missing, no namespaces, no /proc), or None when it can.

    Tried once per executable and process, with every namespace a contained command uses."""
    command = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--ro-bind", "/", "/"]
    command += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"]
    try:
        done = subprocess.run(command, capture_output=True, timeout=PROBE_TIMEOUT_SECONDS, check=False)
    except FileNotFoundError:
        return f"{bwrap} not found (install the bubblewrap package)"
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{bwrap} could not run: {error}"
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{bwrap} failed its trial run: {detail[-1] if detail else f'exit {done.returncode}'}"
    return None
