"""Skills published on a web server (config `skills.urls`), downloaded into Strata's cache before discovery.

A skill server serves `{url}/index.json` = `{"skills": [{"name": ..., "files": [...]}]}` and each file at
`{url}/{name}/{file}`. Entries without a `SKILL.md` are skipped. Files land in `{cache}/skills/{name}/` and
are not downloaded again once present (OpenCode's `skill/discovery.ts`). Names and file paths come from a
remote server, so anything that could escape the cache directory or leave the server's origin is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Protocol
from urllib.parse import quote, unquote, urljoin, urlsplit

import anyio
from attrs import frozen

from strata_core.http import make_client
from strata_core.logging import get_logger

log = get_logger(__name__)

SKILL_CONCURRENCY = 4
FILE_CONCURRENCY = 8
TIMEOUT_SECONDS = 30.0


class HttpResponse(Protocol):
    """The part of an HTTP response used here (an httpx response, from `http.make_client`)."""

    @property
    def content(self) -> bytes: ...

    def raise_for_status(self) -> Any: ...

    def json(self) -> Any: ...


class HttpClient(Protocol):
    async def get(self, url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse: ...


@frozen
class RemoteFile:
    url: str
    destination: Path


@frozen
class RemoteSkill:
    name: str
    root: Path
    files: tuple[RemoteFile, ...]


def _safe_segment(value: str) -> bool:
    return value not in ("", ".", "..") and not any(c in value for c in "/\\\0")


def _safe_relative_path(value: str) -> bool:
    if not value or any(c in value for c in "\\\0?#") or urlsplit(value).scheme or value.startswith("/"):
        return False
    return all(_safe_segment(unquote(segment)) for segment in value.split("/"))


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def plan_downloads(base_url: str, index: Any, cache: Path) -> list[RemoteSkill]:
    """The skills of an index worth downloading, with every file's URL and destination checked (pure)."""
    base = base_url if base_url.endswith("/") else f"{base_url}/"
    entries = index.get("skills") if isinstance(index, dict) else None
    if not isinstance(entries, list):
        log.notice("skill index has no `skills` list, skipped", url=base)
        return []
    skills: list[RemoteSkill] = []
    for entry in entries:
        name, files = (entry.get("name"), entry.get("files")) if isinstance(entry, dict) else (None, None)
        if not isinstance(name, str) or not isinstance(files, list) or not _safe_segment(name):
            continue
        if "SKILL.md" not in files:
            log.notice("remote skill has no SKILL.md, skipped", url=base, skill=name)
            continue
        planned = _plan_files(base, name, files, cache / name)
        if planned is not None:
            skills.append(RemoteSkill(name, cache / name, planned))
    return skills


def _plan_files(base: str, name: str, files: list[Any], root: Path) -> tuple[RemoteFile, ...] | None:
    skill_url = urljoin(base, f"{quote(name)}/")
    planned: list[RemoteFile] = []
    for file in files:
        if not isinstance(file, str) or not _safe_relative_path(file):
            log.notice("remote skill lists an unsafe file, skill skipped", skill=name, file=str(file))
            return None
        url = urljoin(skill_url, file)
        if _origin(url) != _origin(base):
            return None
        planned.append(RemoteFile(url, root.joinpath(*PurePosixPath(unquote(file)).parts)))
    return tuple(planned)


async def pull_skill_dirs(urls: Sequence[str], cache: Path) -> list[Path]:
    """Download the skills of every server (already cached files are kept) and return their directories."""
    found: list[Path] = []
    async with make_client(connect_timeout=TIMEOUT_SECONDS, read_timeout=TIMEOUT_SECONDS) as client:
        for url in urls:
            found += await _pull(client, url, cache)
    return found


async def _pull(client: HttpClient, url: str, cache: Path) -> list[Path]:
    base = url if url.endswith("/") else f"{url}/"
    index_url = urljoin(base, "index.json")
    try:
        response = await client.get(index_url, headers={"Accept": "application/json"})
        response.raise_for_status()
        index = response.json()
    except Exception as error:
        # Remote skills are optional: a server that is down or serves garbage costs its skills, nothing more.
        log.notice("skill index could not be loaded", url=index_url, error=str(error) or type(error).__name__)
        return []
    skills = plan_downloads(base, index, cache)
    done: list[Path | None] = [None] * len(skills)
    skill_limiter, file_limiter = anyio.CapacityLimiter(SKILL_CONCURRENCY), anyio.CapacityLimiter(FILE_CONCURRENCY)

    async def fetch_skill(position: int, skill: RemoteSkill) -> None:
        async with skill_limiter, anyio.create_task_group() as group:
            for file in skill.files:
                group.start_soon(_download, client, file, file_limiter)
        if (skill.root / "SKILL.md").is_file():
            done[position] = skill.root

    async with anyio.create_task_group() as group:
        for position, skill in enumerate(skills):
            group.start_soon(fetch_skill, position, skill)
    return [root for root in done if root is not None]


async def _download(client: HttpClient, file: RemoteFile, limiter: anyio.CapacityLimiter) -> None:
    if await anyio.Path(file.destination).exists():
        return
    async with limiter:
        try:
            response = await client.get(file.url)
            response.raise_for_status()
        except Exception as error:
            log.notice("skill file could not be downloaded", url=file.url, error=str(error) or type(error).__name__)
            return
    await anyio.Path(file.destination.parent).mkdir(parents=True, exist_ok=True)
    await anyio.Path(file.destination).write_bytes(response.content)
