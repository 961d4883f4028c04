"""Files of the project for the file routes, never anything outside it, and only regular files.

A path is taken relative to the project directory, every symlink in it resolved, and refused (403) unless
the result lies in the project (`inside_project`: the directory or its worktree). What is read is then
opened as the file tools open it (`confined_file`): the resolved path walked from `/` without following a
symlink at any step, so a link swapped in after the check is not followed out of the project, and anything
but a regular file refused (400) after an `lstat`, before any open: a FIFO opened for reading would hold a
worker thread until something writes to it, and enough of them would stall every route.

A path holding a NUL byte is refused (400): no file name can hold one. A name too long for the file system
names nothing that can ever exist: 404, in a prompt's file part too, where a missing file may be named. A
name that is not UTF-8 is listed with U+FFFD for each such byte (`valid_text`), as OpenCode's Node decodes
it: JSON cannot carry the byte.
"""

from __future__ import annotations

import base64
import errno
import os
import stat
from pathlib import Path
from typing import Any

from strata_core.project import ProjectInfo
from strata_core.text import valid_text
from strata_core.tool import ToolFailure
from strata_core.tool.support import (
    ChangedWhileOpening,
    NotRegularFile,
    Target,
    absolute,
    descriptor,
    inside_project,
    is_binary,
    kind_name,
    media_type,
    open_for_reading,
    read_all,
    real,
)
from strata_server.errors import ApiError, bad_request, not_found

MAX_FILE_BYTES = 5 * 1024 * 1024


def project_path(project: ProjectInfo, raw: str) -> Path:
    """The real path `raw` names, or a 403 when it leads outside the project (a 400 when it holds a NUL)."""
    if "\0" in raw:
        shown = raw.replace("\0", "\\0")
        raise bad_request(f"{shown} is not a path: it holds a NUL byte (shown as \\0), which no file name can hold.")
    target = real(absolute(raw, project.directory))
    if not inside_project(target, project.directory, project.worktree):
        raise ApiError(403, "ForbiddenError", f"{raw} is outside the project ({project.directory}); it is not served.")
    return target


def special_file(raw: str, kind: str) -> ApiError:
    """The 400 for a path naming a FIFO, a socket or a device (`kind`, as `confined_file.kind_name` words it)."""
    return bad_request(f"{raw} is a {kind}, not a regular file; only regular files are read.")


def found_kind(path: Path, raw: str) -> int | None:
    """The `lstat` mode of `path` (a symlink is not followed), or None when nothing is there yet; a 404 when
    `raw` (the path as the request gave it) is too long for the file system: nothing can ever be there."""
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            raise not_found(f"{raw} names no file: it is longer than the file system allows a name to be.") from None
        raise


def ordinary_path(project: ProjectInfo, raw: str) -> Path:
    """`project_path` where a regular file, a directory or nothing yet may be named (a listing, a prompt's file
    part), but never a FIFO, a socket or a device (400)."""
    path = project_path(project, raw)
    mode = found_kind(path, raw)
    if mode is not None and not stat.S_ISDIR(mode) and not stat.S_ISREG(mode):
        raise special_file(raw, kind_name(mode))
    return path


def open_regular(path: Path) -> int:
    """A read descriptor of the regular file at the real path `path` (`confined_file.open_for_reading`)."""
    return open_for_reading(Target(path, path, True))


def read_content(project: ProjectInfo, raw: str) -> dict[str, Any]:
    """OpenCode's `FileContent`: the text, or base64 with its type for a binary file."""
    path = project_path(project, raw)
    mode = found_kind(path, raw)
    if mode is None:
        raise not_found(f"File not found: {raw}")
    if stat.S_ISDIR(mode):
        raise bad_request(f"{raw} is a directory; list it with GET /file?path=...")
    if not stat.S_ISREG(mode):
        raise special_file(raw, kind_name(mode))
    try:
        with descriptor(open_regular(path)) as fd:
            data = read_all(fd, MAX_FILE_BYTES)
    except FileNotFoundError as error:
        raise not_found(f"File not found: {raw}") from error
    except NotRegularFile as error:  # replaced since the lstat
        raise special_file(raw, error.kind) from error
    except ChangedWhileOpening as error:
        raise ApiError(409, "ConflictError", f"{raw} changed while it was being opened; try again.") from error
    except ToolFailure as error:  # a lasting refusal of the OS: no permission, a symlink loop, ...
        raise ApiError(403, "ForbiddenError", f"{raw} cannot be served: {error}") from error
    if len(data) > MAX_FILE_BYTES:
        raise ApiError(413, "PayloadTooLargeError", f"{raw} is over {MAX_FILE_BYTES} bytes; it is not served.")
    if is_binary(path, data[:4096]):
        mime = media_type(path, data[:4096]) or "application/octet-stream"
        return {"type": "binary", "content": base64.b64encode(data).decode(), "encoding": "base64", "mimeType": mime}
    return {"type": "text", "content": data.decode("utf-8", errors="replace")}


def list_directory(project: ProjectInfo, raw: str, ignored: set[str]) -> list[dict[str, Any]]:
    """OpenCode's `FileNode`s of one directory: directories first, then files, each by name."""
    directory = ordinary_path(project, raw)
    mode = found_kind(directory, raw)  # the real path: no symlink left to follow
    if mode is None or not stat.S_ISDIR(mode):
        raise not_found(f"Directory not found: {raw}")
    nodes = []
    for child in sorted(directory.iterdir(), key=lambda p: (not p.is_dir(), p.name)):
        is_dir = child.is_dir()
        relative = (
            child.relative_to(project.directory).as_posix() if child.is_relative_to(project.directory) else str(child)
        )
        nodes.append(
            {
                "name": valid_text(child.name),
                "path": valid_text(relative) + ("/" if is_dir else ""),
                "absolute": valid_text(str(child)),
                "type": "directory" if is_dir else "file",
                "ignored": relative in ignored,
            }
        )
    return nodes
