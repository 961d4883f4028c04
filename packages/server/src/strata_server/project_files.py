"""Files of the project for the file routes, never anything outside it.

A path is taken relative to the project directory, every symlink in it resolved, and refused (403) unless
the result lies in the project (`inside_project`: the directory or its worktree). The file read is the
resolved path, opened without following a symlink at its last step, so a link swapped in after the check
is not followed out of the project.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

from strata_core.context.project import ProjectInfo
from strata_core.tool.support.file_kind import is_binary, media_type
from strata_core.tool.support.paths_guard import absolute, inside_project, real
from strata_server.errors import ApiError, not_found

MAX_FILE_BYTES = 5 * 1024 * 1024


def project_path(project: ProjectInfo, raw: str) -> Path:
    """The real path `raw` names, or a 403 when it leads outside the project."""
    target = real(absolute(raw, project.directory))
    if not inside_project(target, project.directory, project.worktree):
        raise ApiError(403, "ForbiddenError", f"{raw} is outside the project ({project.directory}); it is not served.")
    return target


def read_content(project: ProjectInfo, raw: str) -> dict[str, Any]:
    """OpenCode's `FileContent`: the text, or base64 with its type for a binary file."""
    path = project_path(project, raw)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError as error:
        raise not_found(f"File not found: {raw}") from error
    except IsADirectoryError as error:
        raise ApiError(400, "BadRequest", f"{raw} is a directory; list it with GET /file?path=...") from error
    with os.fdopen(descriptor, "rb") as file:
        if os.fstat(file.fileno()).st_size > MAX_FILE_BYTES:
            raise ApiError(413, "PayloadTooLargeError", f"{raw} is over {MAX_FILE_BYTES} bytes; it is not served.")
        data = file.read()
    if is_binary(path, data[:4096]):
        mime = media_type(path, data[:4096]) or "application/octet-stream"
        return {"type": "binary", "content": base64.b64encode(data).decode(), "encoding": "base64", "mimeType": mime}
    return {"type": "text", "content": data.decode("utf-8", errors="replace")}


def list_directory(project: ProjectInfo, raw: str, ignored: set[str]) -> list[dict[str, Any]]:
    """OpenCode's `FileNode`s of one directory: directories first, then files, each by name."""
    directory = project_path(project, raw)
    if not directory.is_dir():
        raise not_found(f"Directory not found: {raw}")
    nodes = []
    for child in sorted(directory.iterdir(), key=lambda p: (not p.is_dir(), p.name)):
        is_dir = child.is_dir()
        relative = (
            child.relative_to(project.directory).as_posix() if child.is_relative_to(project.directory) else str(child)
        )
        nodes.append(
            {
                "name": child.name,
                "path": relative + ("/" if is_dir else ""),
                "absolute": str(child),
                "type": "directory" if is_dir else "file",
                "ignored": relative in ignored,
            }
        )
    return nodes
