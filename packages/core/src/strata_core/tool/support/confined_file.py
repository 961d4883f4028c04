"""Opening a file tool's target without a check-then-open race: what was checked is what is opened.

A path is resolved once (`resolve`); the `external_directory` decision is taken on that resolved path, and
the file is then opened by walking the same resolved path from `/` one component at a time with
`O_NOFOLLOW` (`openat` on the previous directory's descriptor). A symlink that appears anywhere on the
way after the check (a racing process flipping a link between an inside and an outside target) makes the
open fail instead of following it, so the descriptor can only be the checked file; on the way, the project
directory passed through must be the very directory (st_dev, st_ino) the check saw. Reads and writes then
go through that descriptor.

What was opened is checked too: anything but a regular file (a FIFO, a socket, a device) is refused
before it is opened for content (a FIFO opened for reading would block the run for good), and a file with
more than one hard link whose other links cannot all be found inside the project asks
`external_directory` (a hard link inside the project to an outside file is the outside file).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import anyio
from attrs import frozen

from strata_core.tool.contract import ToolContext, ToolFailure
from strata_core.tool.support.open_failure import cannot, is_link, loops, lstat_at, not_a_directory
from strata_core.tool.support.paths_guard import absolute, contains, directory_pattern, real, relative_to_worktree

_PATH_FLAG = getattr(os, "O_PATH", os.O_RDONLY)
_WALK_FLAGS = _PATH_FLAG | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LIST_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
LINK_SCAN_LIMIT = 100_000
"""Directory entries looked at when searching the project for a hard-linked file's other names."""


@frozen
class Target:
    """A file tool's target: the path as the model named it, the path it resolved to, and where that is."""

    named: Path
    resolved: Path
    """Every symlink resolved at check time; the only path ever opened."""
    inside: bool
    """The resolved path lies in the session directory or the worktree (no external ask needed)."""
    root: Path | None = None
    """The project directory the resolved path lies in (None outside)."""
    root_identity: tuple[int, int] | None = None
    """That directory's (st_dev, st_ino) at check time: the walk must pass through the very same directory."""


class ChangedWhileOpening(ToolFailure):
    def __init__(self, target: Path) -> None:
        super().__init__(
            f"{target} changed while it was being opened (a symbolic link appeared on its path); "
            "nothing was read or written. Try again once the file stays put."
        )


class NotRegularFile(ToolFailure):
    def __init__(self, target: Path, mode: int) -> None:
        kind = kind_name(mode)
        super().__init__(f"Cannot use {target}: it is a {kind}, not a regular file; file tools only open regular files")
        self.kind = kind


def kind_name(mode: int) -> str:
    """What a non-regular file is, in words: `FIFO (named pipe)`, `socket`, `device`, `directory`."""
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "directory"
    return "special file"


def _roots(ctx: ToolContext) -> list[Path]:
    roots = [real(ctx.directory)]
    worktree = real(ctx.worktree)
    if worktree != Path(worktree.anchor):  # a non-git project's worktree is `/`: only the directory counts
        roots.append(worktree)
    return roots


def resolve(ctx: ToolContext, raw: str | Path) -> Target:
    """Resolve `raw` (relative to the session directory) once and say whether it is inside the project."""
    named = absolute(str(raw), ctx.directory)
    resolved = real(named)
    root = next((root for root in reversed(_roots(ctx)) if contains(root, resolved)), None)
    if root is None:
        return Target(named, resolved, False)
    try:
        found = root.stat()
    except OSError:
        return Target(named, resolved, True, root)
    return Target(named, resolved, True, root, (found.st_dev, found.st_ino))


async def checked(ctx: ToolContext, raw: str | Path, *, bypass: bool = False) -> Target:
    """`resolve`, then ask `external_directory` for the resolved path's directory when it is outside.

    For a directory the pattern is the directory itself; for a file (or nothing yet) its parent.
    """
    target = resolve(ctx, raw)
    if not (bypass or target.inside):
        try:
            is_dir = existing_kind(target) == "directory"
        except ToolFailure:  # why it cannot be reached is told once the ask is answered, not before
            is_dir = False
        parent = target.resolved if is_dir else target.resolved.parent
        pattern = directory_pattern(parent)
        metadata = {"filepath": str(target.named), "parentDir": str(parent)}
        await ctx.ask("external_directory", [pattern], [pattern], metadata)
    return target


def patterns(ctx: ToolContext, target: Target) -> list[str]:
    """Permission patterns for the target: as named and, when a symlink changes it, as resolved.

    So `notes.txt -> .env` is still judged by the `*.env` rule; the resolved form is the checked one.
    """
    named = relative_to_worktree(ctx.worktree, target.named)
    resolved = relative_to_worktree(real(ctx.worktree), target.resolved)
    return [named] if named == resolved else [named, resolved]


# ------------------------------------------------------------------------------------------ the walk


def _check_root(target: Target, here: Path, fd: int) -> None:
    """On reaching the project directory, make sure it is the one the check saw (not one swapped in since)."""
    if target.root_identity is not None and here == target.root:
        found = os.fstat(fd)
        if (found.st_dev, found.st_ino) != target.root_identity:
            raise ChangedWhileOpening(target.resolved)


def _walk_to_parent(target: Target, verb: str, *, create: bool) -> int:
    """A descriptor of the resolved path's parent directory, reached without following any symlink."""
    fd = os.open("/", _WALK_FLAGS)
    here = Path("/")
    try:
        for part in target.resolved.parent.parts[1:]:
            child = _enter(target, fd, here / part, verb, create=create)
            os.close(fd)
            fd, here = child, here / part
            _check_root(target, here, fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _enter(target: Target, parent: int, path: Path, verb: str, *, create: bool) -> int:
    """A descriptor of the directory `path` inside `parent` (made first when missing and `create`)."""
    try:
        try:
            return os.open(path.name, _WALK_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            os.mkdir(path.name, 0o777, dir_fd=parent)
            return os.open(path.name, _WALK_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise _refused(target, parent, path, error, verb) from None


def _refused(target: Target, parent: int, path: Path, error: OSError, verb: str) -> ToolFailure:
    """What a failed open of `path` (in `parent`) on the way to the target means: a race or a lasting cause.

    `O_NOFOLLOW` fails on a symlink with ELOOP (ENOTDIR with `O_PATH`, which opens the link itself).
    """
    if error.errno not in (errno.ELOOP, errno.ENOTDIR):
        return cannot(verb, target.resolved, error)
    found = lstat_at(parent, path.name)
    if is_link(found):
        return _link_failure(target, parent, path.name, verb)
    if found is not None and not stat.S_ISDIR(found.st_mode):
        return not_a_directory(verb, target.resolved, path)
    return ChangedWhileOpening(target.resolved)


def _link_failure(target: Target, parent: int, name: str, verb: str) -> ToolFailure:
    """A symlink where the resolved path has none: it appeared since the check, unless it is a loop that
    resolving could not get through (then it was there all along)."""
    if loops(parent, name):
        return cannot(verb, target.resolved, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))
    return ChangedWhileOpening(target.resolved)


def parent_descriptor(target: Target) -> int:
    """A descriptor of the directory holding `target.resolved`, reached without following symlinks."""
    return _walk_to_parent(target, "open", create=False)


def _lstat_at(target: Target, parent: int, verb: str) -> os.stat_result | None:
    try:
        return os.stat(target.resolved.name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise cannot(verb, target.resolved, error) from None


def _regular(target: Target, parent: int, found: os.stat_result, verb: str) -> None:
    if stat.S_ISLNK(found.st_mode):
        raise _link_failure(target, parent, target.resolved.name, verb)
    if not stat.S_ISREG(found.st_mode):
        raise NotRegularFile(target.resolved, found.st_mode)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _open_final(target: Target, parent: int, flags: int, before: os.stat_result | None, verb: str) -> int:
    resolved = target.resolved
    try:
        fd = os.open(resolved.name, flags, 0o666, dir_fd=parent)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOENT):  # replaced by a symlink, or gone, since the lstat
            raise _link_failure(target, parent, resolved.name, verb) from None
        raise cannot(verb, resolved, error) from None
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode) or (before is not None and not _same_file(before, opened)):
        os.close(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise NotRegularFile(resolved, opened.st_mode)
        raise ChangedWhileOpening(resolved)
    return fd


def open_for_reading(target: Target) -> int:
    """A read-only descriptor of the regular file at `target.resolved`; `FileNotFoundError` when it is missing."""
    parent = _walk_to_parent(target, "read", create=False)
    try:
        before = _lstat_at(target, parent, "read")
        if before is None:
            raise FileNotFoundError(str(target.resolved))
        _regular(target, parent, before, "read")  # a FIFO is refused before an open could block on it
        return _open_final(target, parent, _READ_FLAGS, before, "read")
    finally:
        os.close(parent)


def open_for_writing(target: Target) -> int:
    """A write descriptor of `target.resolved` (created, with its directories, when missing; not truncated)."""
    parent = _walk_to_parent(target, "write", create=True)
    try:
        before = _lstat_at(target, parent, "write")
        if before is not None:
            _regular(target, parent, before, "write")
        return _open_final(target, parent, _WRITE_FLAGS, before, "write")
    finally:
        os.close(parent)


def open_directory(target: Target) -> int:
    """A descriptor of the directory at `target.resolved`, for listing it (`os.scandir(fd)`)."""
    parent = _walk_to_parent(target, "list", create=False)
    try:
        try:
            fd = os.open(target.resolved.name or "/", _LIST_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            raise
        except OSError as error:
            raise _refused(target, parent, target.resolved, error, "list") from None
        try:
            _check_root(target, target.resolved, fd)
        except ChangedWhileOpening:
            os.close(fd)
            raise
        return fd
    finally:
        os.close(parent)


def existing_kind(target: Target) -> Literal["file", "directory", "other"] | None:
    """What is at `target.resolved` now, by `lstat` (a symlink there means it changed since the check);
    None when nothing is, a failure saying why when it cannot be looked at (a directory on the way denies it)."""
    try:
        found = os.lstat(target.resolved)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise cannot("open", target.resolved, error) from None
    if stat.S_ISDIR(found.st_mode):
        return "directory"
    return "file" if stat.S_ISREG(found.st_mode) else "other"


@contextmanager
def descriptor(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def read_all(fd: int, limit: int) -> bytes:
    """The file's bytes through `fd` from its start, at most `limit + 1` of them (more than `limit` is the
    caller's error to report)."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.pread(fd, min(1 << 20, limit + 1 - size), size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def replace_content(fd: int, data: bytes) -> None:
    """Make the file behind `fd` hold exactly `data`."""
    os.ftruncate(fd, 0)
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset : offset + (1 << 20)], offset)


# ------------------------------------------------------------------------------------ hard links


def _links_inside(found: os.stat_result, roots: list[Path]) -> int:
    seen: set[str] = set()
    looked = 0
    outermost = [root for root in roots if not any(other != root and contains(other, root) for other in roots)]
    for root in outermost:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames:
                looked += 1
                path = f"{dirpath}/{name}"
                try:
                    other = os.lstat(path)
                except OSError:
                    continue
                if _same_file(found, other):
                    seen.add(path)
            looked += len(dirnames)
            if looked > LINK_SCAN_LIMIT:
                return len(seen)
    return len(seen)


def links_outside(found: os.stat_result, ctx: ToolContext) -> bool:
    """Whether a file (by its `stat`) has a hard link that cannot be shown to lie inside the project."""
    if found.st_nlink <= 1 or not stat.S_ISREG(found.st_mode):
        return False
    return _links_inside(found, _roots(ctx)) < found.st_nlink


def _descriptor_links_outside(fd: int, ctx: ToolContext) -> bool:
    return links_outside(os.fstat(fd), ctx)


async def _ask_for_outside_links(ctx: ToolContext, target: Target) -> None:
    """The `external_directory` ask for a file hard-linked from outside (its other names are unknown)."""
    pattern = str(target.resolved)
    metadata = {"filepath": str(target.named), "parentDir": str(target.resolved.parent), "hardLink": True}
    await ctx.ask("external_directory", [pattern], [pattern], metadata)


async def _vetted(ctx: ToolContext, target: Target, fd: int) -> int:
    try:
        if await anyio.to_thread.run_sync(_descriptor_links_outside, fd, ctx, abandon_on_cancel=True):
            await _ask_for_outside_links(ctx, target)
    except BaseException:
        os.close(fd)
        raise
    return fd


async def open_to_read(ctx: ToolContext, target: Target) -> int:
    """`open_for_reading` off the event loop, then the hard-link check; the caller closes the descriptor."""
    return await _vetted(ctx, target, await anyio.to_thread.run_sync(open_for_reading, target))


async def open_to_write(ctx: ToolContext, target: Target) -> int:
    """`open_for_writing` off the event loop, then the hard-link check; the caller closes the descriptor."""
    return await _vetted(ctx, target, await anyio.to_thread.run_sync(open_for_writing, target))
