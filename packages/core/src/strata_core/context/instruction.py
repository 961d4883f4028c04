"""Instruction files for the system prompt: the global file, the project's AGENTS.md chain, config entries.

What is found, in order (OpenCode's `session/instruction.ts`):
1. the first existing global file: Strata's `AGENTS.md`, OpenCode's `AGENTS.md`, `~/.claude/CLAUDE.md`;
2. the project's files from the working directory up to the worktree, nearest first: every `AGENTS.md` on
   that path, or, only if there is none, every `CLAUDE.md`, or else every `CONTEXT.md`;
3. the config `instructions` entries that are paths or globs; then the ones that are http(s) URLs.
Finding the files is `instruction_files`' work; this module's service reads them and fetches the URLs.

`system()` returns the blocks and, beside them, each source that failed and why (`InstructionSet`); the
URL entries are fetched by `instruction_urls` (once per turn when the caller passes the turn's `UrlCache`).

`resolve()` serves the read tool: when it opens a file in a subdirectory, that directory's instruction file
is attached once per assistant message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Protocol

import anyio
import anyio.to_thread
from attrs import define, field, frozen

from strata_core.config.paths import StrataPaths
from strata_core.config.service import Config, ConfigInfo
from strata_core.context.instruction_files import (
    InstructionFailure,
    absolute,
    discover_system_paths,
    is_url,
    loaded_instruction_paths,
    nearby_instruction_files,
    project_file_names,
)
from strata_core.context.instruction_urls import (
    MAX_URL_BYTES,
    URL_FETCH_CONCURRENCY,
    URL_TIMEOUT_SECONDS,
    HttpUrlFetcher,
    UrlCache,
    UrlFetcher,
    UrlFetchError,
    fetch_urls,
)
from strata_core.logging import get_logger
from strata_core.message import MessageWithParts
from strata_core.permission.outside_content import OutsideContent
from strata_core.project import Project, ProjectInfo

log = get_logger(__name__)

FILE_READ_CONCURRENCY = 8
"""OpenCode's: instruction files read at once."""
READ_INLINE_FILES = 4
"""Up to this many instruction files are read by the worker thread that finds them (one trip to it a step)."""

__all__ = [  # the URL names are re-exported: they were this module's before `instruction_urls` held them
    "MAX_URL_BYTES",
    "URL_FETCH_CONCURRENCY",
    "URL_TIMEOUT_SECONDS",
    "HttpUrlFetcher",
    "Instruction",
    "InstructionBlock",
    "InstructionFailure",
    "InstructionService",
    "InstructionSet",
    "UrlCache",
    "UrlFetchError",
    "UrlFetcher",
]


@frozen
class InstructionBlock:
    """One instruction source and its text, as the model sees it."""

    source: str
    """The absolute file path or the URL the text came from."""
    content: str

    @property
    def text(self) -> str:
        return f"Instructions from: {self.source}\n{self.content}"


@frozen
class InstructionSet:
    """What the instructions of a system prompt came to: the blocks in order, and the sources that failed."""

    blocks: tuple[InstructionBlock, ...] = ()
    failures: tuple[InstructionFailure, ...] = ()


class Instruction(Protocol):
    """The instruction service: which files and URLs feed the system prompt, and nearby files on read."""

    async def system_paths(self) -> list[Path]: ...

    async def system(self, urls: UrlCache | None = None) -> InstructionSet:
        """The system prompt's instructions; `urls`: the turn's URL answers, so each URL is fetched once a turn."""
        ...

    async def resolve(
        self, messages: Sequence[MessageWithParts], filepath: Path, message_id: str
    ) -> list[InstructionBlock]: ...

    def clear(self, message_id: str) -> None: ...


def read_instruction_file(path: Path, failures: list[InstructionFailure] | None = None) -> str | None:
    """The file's text, or None (with a warning) when it cannot be read (added to `failures`) or is empty."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        log.notice("instruction file unreadable, skipped", path=str(path), error=str(error))
        if failures is not None:
            failures.append(InstructionFailure(str(path), error.strerror or str(error)))
        return None
    if not text:
        log.notice("instruction file empty, skipped", path=str(path))
        return None
    return text


# ---------------------------------------------------------------------------------------------------------
# The service


@define
class InstructionService:
    """Default `Instruction`: reads the disk on every call (files can change), and the configured URLs on every
    call that brings no `UrlCache` answers for them (a turn brings its own: one fetch per URL a turn).

    `fetcher` gets the URLs' text (default: `HttpUrlFetcher`); the limits and the timeout are OpenCode's."""

    config: Config
    project: Project
    paths: StrataPaths
    env: Mapping[str, str]
    fetcher: UrlFetcher | None = None
    url_timeout: float = URL_TIMEOUT_SECONDS
    """How long the URL entries may take, all of them together."""
    file_concurrency: int = FILE_READ_CONCURRENCY
    url_concurrency: int = URL_FETCH_CONCURRENCY
    _claims: dict[str, set[Path]] = field(factory=dict, init=False, repr=False)
    _outside_kept: tuple[ProjectInfo, ConfigInfo, OutsideContent] | None = field(default=None, init=False, repr=False)

    async def _outside(self) -> OutsideContent:
        info, config = await self.project.info(), await self.config.get()
        kept = self._outside_kept
        if kept is not None and kept[0] is info and kept[1] is config:
            return kept[2]  # both are loaded once and kept: the same judge as the last step's
        roots = (info.worktree, info.directory, *self.paths.global_config_dirs)
        outside = OutsideContent.build(roots, config.data.get("permission"), self.paths.home)
        self._outside_kept = (info, config, outside)
        return outside

    async def system_paths(self) -> list[Path]:
        return await anyio.to_thread.run_sync(await self._discovery(None))

    async def _discovery(self, failures: list[InstructionFailure] | None) -> Callable[[], list[Path]]:
        """The blocking search for the system prompt's files (`discover_system_paths`), its inputs gathered."""
        info, config, outside = await self.project.info(), await self.config.get(), await self._outside()
        return partial(discover_system_paths, info, self.paths, self.env, config.instructions, outside, failures)

    async def system(self, urls: UrlCache | None = None) -> InstructionSet:
        """Every instruction block in order, and what failed: the files read while the URLs are fetched."""
        config = await self.config.get()
        failures: list[InstructionFailure] = []
        discover = await self._discovery(failures)
        files: list[Path] = []
        texts: dict[Path, str | None] = {}
        unread: dict[Path, list[InstructionFailure]] = {}

        def find_and_read_few() -> None:
            # One trip to a worker thread for the usual few files (a project's AGENTS.md, the global one);
            # more are read concurrently, below.
            files.extend(discover())
            if len(files) <= READ_INLINE_FILES:
                for path in files:
                    unread[path] = []
                    texts[path] = read_instruction_file(path, unread[path])

        limiter = anyio.CapacityLimiter(self.file_concurrency)

        async def read(path: Path) -> None:
            unread[path] = []  # per file, so the failures keep the files' order whichever read ends first
            texts[path] = await anyio.to_thread.run_sync(read_instruction_file, path, unread[path], limiter=limiter)

        async def read_files() -> None:
            await anyio.to_thread.run_sync(find_and_read_few)
            if len(files) > READ_INLINE_FILES:
                async with anyio.create_task_group() as reads:
                    for path in files:
                        reads.start_soon(read, path)

        async with anyio.create_task_group() as group:
            group.start_soon(read_files)
            fetcher = self.fetcher or HttpUrlFetcher(timeout=self.url_timeout)
            entries = [entry for entry in config.instructions if is_url(entry)]
            answers = await fetch_urls(
                entries, fetcher, concurrency=self.url_concurrency, seconds=self.url_timeout, cache=urls
            )
        blocks = [InstructionBlock(str(path), text) for path in files if (text := texts.get(path))]
        failures += [failure for path in files for failure in unread.get(path, ())]
        for url, answer in answers.items():
            if answer.text:
                blocks.append(InstructionBlock(url, answer.text))
            elif answer.failure is not None:
                failures.append(InstructionFailure(url, answer.failure))
        return InstructionSet(tuple(blocks), tuple(failures))

    async def resolve(
        self, messages: Sequence[MessageWithParts], filepath: Path, message_id: str
    ) -> list[InstructionBlock]:
        """Instruction files between the read file and the working directory, not already in context."""
        info = await self.project.info()
        system = set(await self.system_paths())
        skip = system | loaded_instruction_paths(messages)
        target = absolute(filepath)
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
