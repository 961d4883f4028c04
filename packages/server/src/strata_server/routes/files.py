"""Searching and reading the project's files: text search, file-name search, directory listing, content, and
the files changed since the last commit."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.project import ProjectInfo
from strata_core.snapshot import name_bytes, split_nul
from strata_core.text import valid_text
from strata_core.tool import ToolFailure
from strata_core.tool.support import Search, SearchError, real, walk_files
from strata_server.errors import bad_request
from strata_server.git_status import changed_files
from strata_server.project_files import list_directory, open_regular, project_path, read_content
from strata_server.state import server_state

FIND_LIMIT = 100
FILE_LIMIT = 10


def _query(request: Request, name: str) -> str:
    value = request.query_params.get(name)
    if value is None:
        raise bad_request(f"The query parameter {name!r} is required.")
    return value


async def find_text(request: Request) -> JSONResponse:
    project = server_state(request).runtime.project
    pattern = _query(request, "pattern")
    try:
        found = await Search().grep(project.directory, pattern, include=None, limit=FIND_LIMIT)
    except SearchError as error:
        raise bad_request(f"pattern: {error}") from error
    matches = await anyio.to_thread.run_sync(_text_matches, project.directory, pattern, found.lines)
    return JSONResponse(matches)


def _text_matches(root: Path, pattern: str, lines: Any) -> list[dict[str, Any]]:
    """OpenCode's match records: the line, its number, its byte offset in the file, and where it matched."""
    try:
        regex: re.Pattern[str] | None = re.compile(pattern)
    except re.error:
        regex = None  # a ripgrep-only syntax: the line still matched, the spans are not known here
    offsets: dict[str, list[int]] = {}
    out = []
    for line in lines:
        if line.path not in offsets:
            offsets[line.path] = _line_starts(real(root) / line.path)
        starts = offsets[line.path]
        spans = [] if regex is None else [(m.start(), m.end(), m.group()) for m in regex.finditer(line.text)]
        out.append(
            {
                "path": {"text": valid_text(line.path)},
                "lines": {"text": line.text},
                "line_number": line.line,
                "absolute_offset": starts[line.line - 1] if line.line <= len(starts) else 0,
                "submatches": [{"match": {"text": text}, "start": start, "end": end} for start, end, text in spans],
            }
        )
    return out


def _line_starts(path: Path) -> list[int]:
    """The byte offset of each line of a matched file; none when it is no longer a regular file in the project
    (replaced since the search: by a FIFO, which must not be opened, or by a symlink, which is not followed)."""
    try:
        fd = open_regular(path)
    except (OSError, ToolFailure):
        return []
    starts, total = [], 0
    with os.fdopen(fd, "rb") as file:
        for raw in file:
            starts.append(total)
            total += len(raw)
    return starts


async def find_files(request: Request) -> JSONResponse:
    project = server_state(request).runtime.project
    query = _query(request, "query").lower()
    kind = request.query_params.get("type")
    dirs = request.query_params.get("dirs", "true") != "false"
    limit_text = request.query_params.get("limit", str(FILE_LIMIT))
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= 200:
        raise bad_request("limit: expected a whole number from 1 to 200.")
    names = await anyio.to_thread.run_sync(_candidates, project.directory, kind, dirs)
    ranked = sorted((c for c in names if _fuzzy(query, c.lower())), key=lambda c: (query not in c.lower(), len(c), c))
    return JSONResponse(ranked[: int(limit_text)])


def _candidates(root: Path, kind: str | None, dirs: bool) -> list[str]:
    """The project's files and folders as they are shown: a byte that is not UTF-8 as U+FFFD (JSON cannot
    carry it), which is also what a query can match."""
    files = [valid_text(name) for name in walk_files(root)]
    folders = sorted({f"{parent}/" for f in files for parent in _parents(f)})
    if kind == "directory":
        return folders
    if kind == "file" or not dirs:
        return files
    return files + folders


def _parents(relative: str) -> list[str]:
    parts = relative.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _fuzzy(query: str, candidate: str) -> bool:
    """Every character of the query, in order, somewhere in the candidate."""
    rest = iter(candidate)
    return all(char in rest for char in query)


async def list_files(request: Request) -> JSONResponse:
    project = server_state(request).runtime.project
    raw = _query(request, "path")
    directory = await anyio.to_thread.run_sync(project_path, project, raw)  # resolving may touch a slow disk
    ignored = await _ignored(project, directory)
    return JSONResponse(await anyio.to_thread.run_sync(list_directory, project, raw, ignored))


async def _ignored(project: ProjectInfo, directory: Path) -> set[str]:
    """Entries of `directory` git ignores, as project-relative paths (none outside a repository)."""
    names = await anyio.to_thread.run_sync(_entries, project, directory) if project.vcs == "git" else []
    if not names:
        return set()
    # NUL-separated, each name with its own bytes (a name that is not UTF-8 as the file system has it): the
    # answer is compared with the same names, and a newline in a name cannot split it.
    listed = b"".join(name_bytes(name) + b"\0" for name in names)
    done = await anyio.run_process(
        ["git", "-C", str(project.directory), "check-ignore", "-z", "--stdin"], input=listed, check=False
    )
    return set(split_nul(done.stdout))


def _entries(project: ProjectInfo, directory: Path) -> list[str]:
    try:
        children = list(directory.iterdir())
    except OSError:
        return []  # not a directory, gone or a name too long: `list_directory` answers why
    return [str(child.relative_to(project.directory)) for child in children if child.name != ".git"]


async def file_content(request: Request) -> JSONResponse:
    project = server_state(request).runtime.project
    raw = _query(request, "path")
    return JSONResponse(await anyio.to_thread.run_sync(read_content, project, raw))


async def file_status(request: Request) -> JSONResponse:
    project = server_state(request).runtime.project
    if project.vcs != "git":
        return JSONResponse([])
    changed = await changed_files(project.worktree, project.directory)
    return JSONResponse([change.as_json() for change in changed])


ROUTES = [
    Route("/find", find_text, methods=["GET"]),
    Route("/find/file", find_files, methods=["GET"]),
    Route("/file", list_files, methods=["GET"]),
    Route("/file/content", file_content, methods=["GET"]),
    Route("/file/status", file_status, methods=["GET"]),
]
