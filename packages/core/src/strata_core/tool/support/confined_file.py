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
        is_dir = existing_kind(target) == "directory"
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


def _walk_to_parent(target: Target, *, create: bool) -> int:
    """A descriptor of the resolved path's parent directory, reached without following any symlink."""
    resolved = target.resolved
    fd = os.open("/", _WALK_FLAGS)
    here = Path("/")
    try:
        for part in resolved.parent.parts[1:]:
            try:
                child = os.open(part, _WALK_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _WALK_FLAGS, dir_fd=fd)
            os.close(fd)
            fd, here = child, here / part
            _check_root(target, here, fd)
    except ChangedWhileOpening:
        os.close(fd)
        raise
    except OSError as error:
        os.close(fd)
        if error.errno in (errno.ELOOP, errno.ENOTDIR):  # a component became a symlink (or a file)
            raise ChangedWhileOpening(resolved) from None
        raise
    return fd


def parent_descriptor(target: Target) -> int:
    """A descriptor of the directory holding `target.resolved`, reached without following symlinks."""
    return _walk_to_parent(target, create=False)


def _lstat_at(parent: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _regular(target: Path, found: os.stat_result) -> None:
    if stat.S_ISLNK(found.st_mode):
        raise ChangedWhileOpening(target)
    if not stat.S_ISREG(found.st_mode):
        raise NotRegularFile(target, found.st_mode)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _open_final(resolved: Path, parent: int, flags: int, before: os.stat_result | None) -> int:
    try:
        fd = os.open(resolved.name, flags, 0o666, dir_fd=parent)
    except OSError as error:
        raise ChangedWhileOpening(resolved) from error
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode) or (before is not None and not _same_file(before, opened)):
        os.close(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise NotRegularFile(resolved, opened.st_mode)
        raise ChangedWhileOpening(resolved)
    return fd


def open_for_reading(target: Target) -> int:
    """A read-only descriptor of the regular file at `target.resolved`; `FileNotFoundError` when it is missing."""
    parent = _walk_to_parent(target, create=False)
    try:
        before = _lstat_at(parent, target.resolved.name)
        if before is None:
            raise FileNotFoundError(str(target.resolved))
        _regular(target.resolved, before)  # a FIFO is refused before an open could block on it
        return _open_final(target.resolved, parent, _READ_FLAGS, before)
    finally:
        os.close(parent)


def open_for_writing(target: Target) -> int:
    """A write descriptor of `target.resolved` (created, with its directories, when missing; not truncated)."""
    parent = _walk_to_parent(target, create=True)
    try:
        before = _lstat_at(parent, target.resolved.name)
        if before is not None:
            _regular(target.resolved, before)
        return _open_final(target.resolved, parent, _WRITE_FLAGS, before)
    finally:
        os.close(parent)


def open_directory(target: Target) -> int:
    """A descriptor of the directory at `target.resolved`, for listing it (`os.scandir(fd)`)."""
    parent = _walk_to_parent(target, create=False)
    try:
        fd = os.open(target.resolved.name or "/", _LIST_FLAGS, dir_fd=parent)
        try:
            _check_root(target, target.resolved, fd)
        except ChangedWhileOpening:
            os.close(fd)
            raise
        return fd
    except FileNotFoundError:
        raise
    except OSError:
        raise ChangedWhileOpening(target.resolved) from None
    finally:
        os.close(parent)


def existing_kind(target: Target) -> Literal["file", "directory", "other"] | None:
    """What is at `target.resolved` now, by `lstat` (a symlink there means it changed since the check)."""
    try:
        found = os.lstat(target.resolved)
    except OSError:
        return None
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
