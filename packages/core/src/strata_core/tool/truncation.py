"""Keeping tool output within what a model should read: head or tail cut, with the whole saved to disk.

OpenCode's rule (reference §14.3): an output over 2000 lines or 51,200 bytes (or the config's
`tool_output {max_lines, max_bytes}`) keeps whole lines from one end, says how much was cut, and points at a
file under `tool-output/` holding everything. The pointer's advice depends on whether the agent may delegate
to a subagent (`task` not denied).

Unlike OpenCode's one `tool-output/` for every project, Strata saves into `tool-output/<project id>/`: the
sandbox binds, and the agents' rules allow, the session's project's dir only, so a command or the model in
one project neither reads nor overwrites what another project's tools printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio
from attrs import Factory, field, frozen

from strata_core.clock import Clock, SystemClock
from strata_core.config.paths import StrataPaths
from strata_core.ids import Ids
from strata_core.permission.rules import Rule, evaluate
from strata_core.project import GLOBAL_PROJECT_ID

if TYPE_CHECKING:
    from strata_core.config.service import ConfigInfo

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
RETENTION_SECONDS = 7 * 24 * 60 * 60
FILE_PREFIX = "tool_"

Direction = Literal["head", "tail"]


@frozen
class TruncatedOutput:
    content: str
    truncated: bool
    output_path: Path | None = None


@frozen
class Cut:
    """What survives a cut: the kept lines and how much went, in lines or (when bytes ran out) bytes."""

    kept: tuple[str, ...]
    removed: int
    unit: Literal["lines", "bytes"]


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def fits(text: str, max_lines: int, max_bytes: int) -> bool:
    return text.count("\n") + 1 <= max_lines and _utf8_len(text) <= max_bytes


def cut(text: str, max_lines: int, max_bytes: int, direction: Direction = "head") -> Cut:
    """Whole lines from one end, as many as the line and byte budgets allow (a newline costs one byte)."""
    lines = text.split("\n")
    ordered = lines if direction == "head" else list(reversed(lines))
    kept: list[str] = []
    used = 0
    out_of_bytes = False
    for line in ordered:
        if len(kept) >= max_lines:
            break
        size = _utf8_len(line) + (1 if kept else 0)
        if used + size > max_bytes:
            out_of_bytes = True
            break
        kept.append(line)
        used += size
    if direction == "tail":
        kept.reverse()
    if out_of_bytes:
        return Cut(tuple(kept), _utf8_len(text) - used, "bytes")
    return Cut(tuple(kept), len(lines) - len(kept), "lines")


def may_delegate(agent_ruleset: Sequence[Rule] | None) -> bool:
    """Whether the agent may hand the saved file to a subagent (its `task` permission is not denied)."""
    if agent_ruleset is None:
        return False
    return evaluate("task", "*", agent_ruleset).action != "deny"


def hint(saved: Path, agent_ruleset: Sequence[Rule] | None) -> str:
    head = f"The tool call succeeded but the output was truncated. Full output saved to: {saved}\n"
    if may_delegate(agent_ruleset):
        return head + (
            "Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). "
            "Do NOT read the full file yourself - delegate to save context."
        )
    return head + "Use Grep to search the full content or Read with offset/limit to view specific sections."


@frozen
class Truncation:
    """Truncation limits and the directory where full outputs are kept (`StrataPaths.project_tool_output`).

    The container hands it the runtime's clock and ids (file names sort by creation, the seven days count
    on that clock); built alone, it uses the machine's.
    """

    directory: Path
    """Where this project's full outputs are saved."""
    max_lines: int = MAX_LINES
    max_bytes: int = MAX_BYTES
    clock: Clock = field(factory=SystemClock, eq=False, kw_only=True)
    ids: Ids = field(default=Factory(lambda self: Ids(self.clock), takes_self=True), eq=False, kw_only=True)
    root: Path | None = field(default=None, kw_only=True)
    """The dir of every project's saved outputs (`StrataPaths.tool_output`), which `cleanup` sweeps; None
    sweeps `directory` alone."""

    @classmethod
    def from_paths(
        cls,
        paths: StrataPaths,
        project_id: str = GLOBAL_PROJECT_ID,
        *,
        max_lines: int | None = None,
        max_bytes: int | None = None,
    ) -> Truncation:
        """Saving into `project_id`'s dir; without one, into the dir of `global` (OpenCode's id for a directory
        outside any repository)."""
        directory = paths.project_tool_output(project_id)
        return cls(directory, max_lines or MAX_LINES, max_bytes or MAX_BYTES, root=paths.tool_output)

    @classmethod
    def configured(cls, paths: StrataPaths, project_id: str, config: ConfigInfo, clock: Clock, ids: Ids) -> Truncation:
        """Saving into `project_id`'s dir, with the config's `tool_output {max_lines, max_bytes}` (checked on
        load); unset keeps the default."""
        tool_output = config.tool_output
        return cls(
            paths.project_tool_output(project_id),
            tool_output.max_lines or MAX_LINES,
            tool_output.max_bytes or MAX_BYTES,
            clock=clock,
            ids=ids,
            root=paths.tool_output,
        )

    @classmethod
    def default(cls) -> Truncation:
        return cls.from_paths(StrataPaths.from_env())

    def write_sync(self, text: str) -> Path:
        """Save `text` as `tool_<ascending id>`; ascending ids keep the files in creation order."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / self.ids.new("tool")
        path.write_text(text, encoding="utf-8")
        return path

    async def write(self, text: str) -> Path:
        return await anyio.to_thread.run_sync(self.write_sync, text)

    async def output(
        self,
        text: str,
        *,
        direction: Direction = "head",
        agent_ruleset: Sequence[Rule] | None = None,
        max_lines: int | None = None,
        max_bytes: int | None = None,
    ) -> TruncatedOutput:
        """`text` unchanged when it fits; otherwise the kept end, a cut note and a pointer to the full file."""
        lines_limit = max_lines or self.max_lines
        bytes_limit = max_bytes or self.max_bytes
        if fits(text, lines_limit, bytes_limit):
            return TruncatedOutput(text, False)
        result = cut(text, lines_limit, bytes_limit, direction)
        saved = await self.write(text)
        preview = "\n".join(result.kept)
        note = f"...{result.removed} {result.unit} truncated..."
        advice = hint(saved, agent_ruleset)
        head = direction == "head"
        content = f"{preview}\n\n{note}\n\n{advice}" if head else f"{note}\n\n{advice}\n\n{preview}"
        return TruncatedOutput(content, True, saved)

    def cleanup(self) -> int:
        """Delete saved outputs older than seven days, every project's; returns how many went. The runtime
        calls this at start."""
        return cleanup_tool_output(self.root or self.directory, now=self.clock.now_ms() / 1000)


def cleanup_tool_output(directory: Path, *, now: float) -> int:
    """Delete the `tool_*` files modified over seven days before `now` (epoch seconds) in `directory` (the
    flat layout of old, and OpenCode's) and in each project's dir inside it."""
    cutoff = now - RETENTION_SECONDS
    try:
        entries = list(directory.iterdir())
    except OSError:
        return 0
    removed = _remove_old_files(entries, cutoff)
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            try:
                removed += _remove_old_files(list(entry.iterdir()), cutoff)
            except OSError:
                continue
    return removed


def _remove_old_files(entries: Sequence[Path], cutoff: float) -> int:
    removed = 0
    for entry in entries:
        if not entry.name.startswith(FILE_PREFIX):
            continue
        try:
            if entry.lstat().st_mtime < cutoff:
                entry.unlink()
                removed += 1
        except OSError:
            continue
    return removed
