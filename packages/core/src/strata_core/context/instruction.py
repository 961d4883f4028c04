"""Instruction files for the system prompt: the global file, the project's AGENTS.md chain, config entries.

What is found, in order (OpenCode's `session/instruction.ts`):
1. the first existing global file: Strata's `AGENTS.md`, OpenCode's `AGENTS.md`, `~/.claude/CLAUDE.md`;
2. the project's files from the working directory up to the worktree, nearest first: every `AGENTS.md` on
   that path, or, only if there is none, every `CLAUDE.md`, or else every `CONTEXT.md`;
3. the config `instructions` entries that are paths or globs; then the ones that are http(s) URLs.

`resolve()` serves the read tool: when it opens a file in a subdirectory, that directory's instruction file
is attached once per assistant message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import anyio.to_thread
from attrs import define, field, frozen

from strata_core.config.flags import env_flag
from strata_core.config.paths import StrataPaths
from strata_core.config.service import Config
from strata_core.context.project import Project, ProjectInfo
from strata_core.errors import StrataError
from strata_core.http import is_text_media, make_client, read_capped
from strata_core.logging import get_logger
from strata_core.message import MessageWithParts, ToolPart, ToolStateCompleted
from strata_core.permission.outside_content import OutsideContent

if TYPE_CHECKING:
    import httpx

log = get_logger(__name__)

PROJECT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
"""Project instruction files by precedence; CONTEXT.md is OpenCode's deprecated name."""
URL_TIMEOUT_SECONDS = 5.0
FILE_READ_CONCURRENCY = 8
URL_FETCH_CONCURRENCY = 4


@frozen
class InstructionBlock:
    """One instruction source and its text, as the model sees it."""

    source: str
    """The absolute file path or the URL the text came from."""
    content: str

    @property
    def text(self) -> str:
        return f"Instructions from: {self.source}\n{self.content}"


MAX_URL_BYTES = 5 * 1024 * 1024
"""What an instruction URL may weigh: webfetch's limit."""


class UrlFetchError(StrataError):
    """A URL instruction that answered with something other than a 2xx."""


class UrlFetcher(Protocol):
    """Fetches the text of an instruction URL; raises on a non-2xx answer (or any transport failure)."""

    async def get_text(self, url: str) -> str: ...


@define
class HttpUrlFetcher:
    """Default `UrlFetcher`: a plain GET through Strata's HTTP client factory."""

    timeout: float = URL_TIMEOUT_SECONDS
    client: httpx.AsyncClient | None = None
    """The runtime's shared client (`open_runtime(http_client=...)`); None: a client of its own per fetch."""

    async def get_text(self, url: str) -> str:
        """The body as text: at most `MAX_URL_BYTES`, and only a text media type (a binary body would be
        injected into every system prompt as it is)."""
        if self.client is not None:
            return await self._read(self.client, url)
        async with make_client(connect_timeout=self.timeout, read_timeout=self.timeout) as client:
            return await self._read(client, url)

    async def _read(self, client: httpx.AsyncClient, url: str) -> str:
        async with client.stream("GET", url, timeout=self.timeout) as response:
            if not response.is_success:
                raise UrlFetchError(f"HTTP {response.status_code}")
            content_type = response.headers.get("content-type", "")
            if content_type and not is_text_media(content_type):
                raise UrlFetchError(f"not text: the server says it is {content_type}")
            body = await read_capped(response, MAX_URL_BYTES)
            if body is None:
                raise UrlFetchError(f"larger than the {MAX_URL_BYTES // (1024 * 1024)} MB an instruction URL may be")
            if b"\0" in body:
                raise UrlFetchError("not text: the body holds NUL bytes")
            return body.decode(response.encoding or "utf-8", errors="replace")


class Instruction(Protocol):
    """The instruction service: which files and URLs feed the system prompt, and nearby files on read."""

    async def system_paths(self) -> list[Path]: ...

    async def system(self) -> list[InstructionBlock]: ...

    async def resolve(
        self, messages: Sequence[MessageWithParts], filepath: Path, message_id: str
    ) -> list[InstructionBlock]: ...

    def clear(self, message_id: str) -> None: ...


# ---------------------------------------------------------------------------------------------------------
# Flags and names


def claude_code_prompt_disabled(env: Mapping[str, str]) -> bool:
    return env_flag(env, "DISABLE_CLAUDE_CODE") or env_flag(env, "DISABLE_CLAUDE_CODE_PROMPT")


def project_file_names(env: Mapping[str, str]) -> tuple[str, ...]:
    if claude_code_prompt_disabled(env):
        return tuple(name for name in PROJECT_FILE_NAMES if name != "CLAUDE.md")
    return PROJECT_FILE_NAMES


def is_url(entry: str) -> bool:
    return entry.startswith(("http://", "https://"))


# ---------------------------------------------------------------------------------------------------------
# Finding files (blocking; the service runs these in a worker thread)


def _absolute(path: Path | str) -> Path:
    """Absolute and normalised (`..` folded) without resolving symlinks, like Node's `path.resolve`."""
    return Path(os.path.normpath(Path(path).absolute()))


def _walk_up(start: Path, stop: Path) -> list[Path]:
    """`start` and its parents up to and including `stop` (or the filesystem root when `stop` is not above)."""
    current, dirs = start, [start]
    while current != stop and current.parent != current:
        current = current.parent
        dirs.append(current)
    return dirs


def find_up(name: str, start: Path, stop: Path) -> list[Path]:
    """Every existing `dir/name` from `start` up to `stop`, nearest first."""
    return [directory / name for directory in _walk_up(start, stop) if (directory / name).is_file()]


def glob_files(pattern: str, root: Path) -> list[Path]:
    """Files under `root` matching `pattern` (dot files included), sorted so results are stable."""
    if not root.is_dir():
        return []
    from wcmatch import glob as wcglob  # wcmatch: ~6 ms to import, only when there is something to glob

    flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.NODIR
    matches = wcglob.glob(pattern, root_dir=str(root), flags=flags)
    return sorted(_absolute(root / match) for match in matches)


def glob_up(pattern: str, start: Path, stop: Path) -> list[Path]:
    """`glob_files` in every directory from `start` up to `stop`, nearest first."""
    return [match for directory in _walk_up(start, stop) for match in glob_files(pattern, directory)]


def global_instruction_file(paths: StrataPaths, env: Mapping[str, str]) -> Path | None:
    """The first existing global file: Strata's own wins over OpenCode's, which wins over Claude Code's."""
    candidates = [paths.config / "AGENTS.md", paths.compat_config / "AGENTS.md"]
    if not claude_code_prompt_disabled(env):
        candidates.append(paths.home / ".claude" / "CLAUDE.md")
    return next((_absolute(c) for c in candidates if c.is_file()), None)


def project_instruction_files(project: ProjectInfo, names: Sequence[str]) -> list[Path]:
    """All hits of the first name that has any, from the directory up to the worktree, nearest first."""
    for name in names:
        hits = find_up(name, project.directory, project.worktree)
        if hits:
            return [_absolute(hit) for hit in hits]
    return []


def config_instruction_files(
    entries: Iterable[str],
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    outside: OutsideContent | None = None,
) -> list[Path]:
    """Files named by config `instructions` entries (URLs are skipped here), in entry order."""
    found: list[Path] = []
    for entry in entries:
        if is_url(entry):
            continue
        expanded = str(paths.home / entry[2:]) if entry.startswith("~/") else entry
        try:
            matches = _config_entry_files(expanded, project, paths, env)
            if outside is not None and _GLOB_MAGIC.search(entry):
                matches = [path for path in matches if outside.allows(path, f"instruction glob {entry}")]
            found += matches
        except OSError as error:
            # A glob over an unreadable directory is not worth failing the turn over.
            log.notice("instruction glob failed", entry=entry, error=str(error))
    return found


_GLOB_MAGIC = re.compile(r"[*?\[{]")


def _config_entry_files(entry: str, project: ProjectInfo, paths: StrataPaths, env: Mapping[str, str]) -> list[Path]:
    if Path(entry).is_absolute():
        return glob_files(Path(entry).name, Path(entry).parent)
    if env_flag(env, "DISABLE_PROJECT_CONFIG"):
        # Without project config, relative entries may only point inside the global config directory.
        return glob_up(entry, paths.config, paths.config)
    return glob_up(entry, project.directory, project.worktree)


def discover_system_paths(
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    instructions: Iterable[str],
    outside: OutsideContent | None = None,
) -> list[Path]:
    """Global file, project files (nearest first), config files: de-duplicated, first position kept.

    With `outside`, a project AGENTS.md (or CLAUDE.md) symlinked from outside the worktree and the global
    config dirs, or a file a config glob reaches there, is kept only where it allows (`external_directory`);
    a file a config entry names exactly is the user's choice.
    """
    found: list[Path] = []
    global_file = global_instruction_file(paths, env)
    if global_file is not None:
        found.append(global_file)
    if not env_flag(env, "DISABLE_PROJECT_CONFIG"):
        chain = project_instruction_files(project, project_file_names(env))
        found += [path for path in chain if outside is None or outside.allows(path, "instruction file")]
    found += config_instruction_files(instructions, project, paths, env, outside)
    return list(dict.fromkeys(found))


def nearest_instruction_file(directory: Path, names: Sequence[str]) -> Path | None:
    """The first of the instruction names that exists in `directory` (no walking)."""
    return next((directory / name for name in names if (directory / name).is_file()), None)


def nearby_instruction_files(target: Path, root: Path, names: Sequence[str]) -> list[Path]:
    """The instruction file of each directory from the target's up to (not including) `root`, nearest first."""
    # Proper containment instead of OpenCode's string prefix test, which also matched `/repo-other` for a
    # root of `/repo`. The root itself is excluded: its file is already in the system prompt.
    found: list[Path] = []
    current = target.parent
    while current != root and current.is_relative_to(root):
        nearest = nearest_instruction_file(current, names)
        if nearest is not None:
            found.append(_absolute(nearest))
        current = current.parent
    return found


def loaded_instruction_paths(messages: Sequence[MessageWithParts]) -> set[Path]:
    """Paths the read tool already attached: `metadata.loaded` of completed, non-compacted read parts."""
    loaded: set[Path] = set()
    for message in messages:
        for part in message.parts:
            if not (isinstance(part, ToolPart) and part.tool == "read"):
                continue
            state = part.state
            if not isinstance(state, ToolStateCompleted) or state.time.compacted:
                continue
            items: Any = state.metadata.get("loaded")
            if isinstance(items, list):
                loaded.update(_absolute(item) for item in items if isinstance(item, str))
    return loaded


def read_instruction_file(path: Path) -> str | None:
    """The file's text, or None (with a warning) when it cannot be read or is empty."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        log.notice("instruction file unreadable, skipped", path=str(path), error=str(error))
        return None
    if not text:
        log.notice("instruction file empty, skipped", path=str(path))
        return None
    return text


# ---------------------------------------------------------------------------------------------------------
# The service


@define
class InstructionService:
    """Default `Instruction`: reads the disk and the configured URLs on every call (files can change)."""

    config: Config
    project: Project
    paths: StrataPaths
    env: Mapping[str, str]
    fetcher: UrlFetcher | None = None
    url_timeout: float = URL_TIMEOUT_SECONDS
    _claims: dict[str, set[Path]] = field(factory=dict, init=False, repr=False)

    async def _outside(self) -> OutsideContent:
        info, config = await self.project.info(), await self.config.get()
        roots = (info.worktree, info.directory, *self.paths.global_config_dirs)
        return OutsideContent.build(roots, config.data.get("permission"), self.paths.home)

    async def system_paths(self) -> list[Path]:
        info, config, outside = await self.project.info(), await self.config.get(), await self._outside()
        return await anyio.to_thread.run_sync(
            discover_system_paths, info, self.paths, self.env, config.instructions, outside
        )

    async def system(self) -> list[InstructionBlock]:
        """Every instruction block in order: files read 8 at once and URLs fetched 4 at once, in one task group."""
        config = await self.config.get()
        files = await self.system_paths()
        urls = [entry for entry in config.instructions if is_url(entry)]
        results: list[InstructionBlock | None] = [None] * (len(files) + len(urls))
        file_limiter = anyio.CapacityLimiter(FILE_READ_CONCURRENCY)
        url_limiter = anyio.CapacityLimiter(URL_FETCH_CONCURRENCY)
        async with anyio.create_task_group() as group:
            for index, path in enumerate(files):
                group.start_soon(self._load_file, path, file_limiter, results, index)
            for index, url in enumerate(urls, start=len(files)):
                group.start_soon(self._load_url, url, url_limiter, results, index)
        return [block for block in results if block is not None]

    async def _load_file(
        self, path: Path, limiter: anyio.CapacityLimiter, results: list[InstructionBlock | None], index: int
    ) -> None:
        text = await anyio.to_thread.run_sync(read_instruction_file, path, limiter=limiter)
        if text is not None:
            results[index] = InstructionBlock(str(path), text)

    async def _load_url(
        self, url: str, limiter: anyio.CapacityLimiter, results: list[InstructionBlock | None], index: int
    ) -> None:
        async with limiter:
            text = await self._fetch(url)
        if text:
            results[index] = InstructionBlock(url, text)
        elif text is not None:
            log.notice("instruction URL empty, skipped", url=url)

    async def _fetch(self, url: str) -> str | None:
        fetcher = self.fetcher or HttpUrlFetcher(timeout=self.url_timeout)
        with anyio.move_on_after(self.url_timeout) as scope:
            try:
                return await fetcher.get_text(url)
            except Exception as error:
                # A URL instruction is best effort: whatever goes wrong (refused, DNS, TLS, non-2xx), the turn
                # goes on without it. Cancellation is not an Exception and still propagates.
                log.notice("instruction URL failed, skipped", url=url, error=str(error) or type(error).__name__)
                return None
        if scope.cancelled_caught:
            log.notice("instruction URL timed out, skipped", url=url, timeout_seconds=self.url_timeout)
        return None

    async def resolve(
        self, messages: Sequence[MessageWithParts], filepath: Path, message_id: str
    ) -> list[InstructionBlock]:
        """Instruction files between the read file and the working directory, not already in context."""
        info = await self.project.info()
        system = set(await self.system_paths())
        skip = system | loaded_instruction_paths(messages)
        target = _absolute(filepath)
        names = project_file_names(self.env)
        found = await anyio.to_thread.run_sync(nearby_instruction_files, target, info.directory, names)
        outside = await self._outside()
        claimed = self._claims.setdefault(message_id, set())
        blocks: list[InstructionBlock] = []
        for path in found:
            if path == target or path in skip or path in claimed or not outside.allows(path, "instruction file"):
                continue
            claimed.add(path)
            text = await anyio.to_thread.run_sync(read_instruction_file, path)
            if text is not None:
                blocks.append(InstructionBlock(str(path), text))
        return blocks

    def clear(self, message_id: str) -> None:
        """Forget which files were attached for a finished assistant message."""
        self._claims.pop(message_id, None)
