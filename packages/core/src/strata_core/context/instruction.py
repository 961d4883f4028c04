"""Instruction files for the system prompt: the global file, the project's AGENTS.md chain, config entries.

What is found, in order (OpenCode's `session/instruction.ts`):
1. the first existing global file: Strata's `AGENTS.md`, OpenCode's `AGENTS.md`, `~/.claude/CLAUDE.md`;
2. the project's files from the working directory up to the worktree, nearest first: every `AGENTS.md` on
   that path, or, only if there is none, every `CLAUDE.md`, or else every `CONTEXT.md`;
3. the config `instructions` entries that are paths or globs; then the ones that are http(s) URLs.

`system()` returns the blocks and, beside them, each source that failed and why (`InstructionSet`); the
URL entries are fetched by `instruction_urls` (once per turn when the caller passes the turn's `UrlCache`).

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
from strata_core.config.service import Config, ConfigInfo
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
from strata_core.message import MessageWithParts, ToolPart, ToolStateCompleted
from strata_core.permission.outside_content import OutsideContent
from strata_core.project import Project, ProjectInfo

if TYPE_CHECKING:
    pass

log = get_logger(__name__)

PROJECT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
"""Project instruction files by precedence; CONTEXT.md is OpenCode's deprecated name."""
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
class InstructionFailure:
    """An instruction source that gave nothing, and why (unreadable file, failed or hanging URL, bad glob)."""

    source: str
    """The file path, the URL or the config entry."""
    reason: str


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
    failures: list[InstructionFailure] | None = None,
) -> list[Path]:
    """Files named by config `instructions` entries (URLs are skipped here), in entry order; an entry that
    cannot be searched is left out (and added to `failures`)."""
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
            if failures is not None:
                failures.append(InstructionFailure(entry, str(error)))
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
    failures: list[InstructionFailure] | None = None,
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
    found += config_instruction_files(instructions, project, paths, env, outside, failures)
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
        return await self._system_paths(None)

    async def _system_paths(self, failures: list[InstructionFailure] | None) -> list[Path]:
        info, config, outside = await self.project.info(), await self.config.get(), await self._outside()
        return await anyio.to_thread.run_sync(
            discover_system_paths, info, self.paths, self.env, config.instructions, outside, failures
        )

    async def system(self, urls: UrlCache | None = None) -> InstructionSet:
        """Every instruction block in order, and what failed: the files read while the URLs are fetched."""
        config = await self.config.get()
        info, outside = await self.project.info(), await self._outside()
        failures: list[InstructionFailure] = []
        files: list[Path] = []
        texts: dict[Path, str | None] = {}
        unread: dict[Path, list[InstructionFailure]] = {}

        def find_and_read_few() -> None:
            # One trip to a worker thread for the usual few files (a project's AGENTS.md, the global one);
            # more are read concurrently, below.
            files.extend(discover_system_paths(info, self.paths, self.env, config.instructions, outside, failures))
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
