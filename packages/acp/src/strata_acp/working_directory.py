"""A session's working directory: ACP's `cwd`, which the protocol says is an absolute path, checked before a
session is made or opened with it."""

from __future__ import annotations

from pathlib import Path

import anyio
from acp import RequestError


async def checked_cwd(cwd: str) -> Path:
    """`cwd` as a path, or the client's error (-32602) saying what is wrong with it."""
    path = Path(cwd)
    if not cwd or not path.is_absolute():
        raise RequestError.invalid_params({"cwd": cwd, "reason": "cwd must be an absolute path"})
    if not await anyio.Path(path).is_dir():
        exists = await anyio.Path(path).exists()
        reason = "cwd is not a directory" if exists else "cwd does not exist"
        raise RequestError.invalid_params({"cwd": cwd, "reason": reason})
    return path
