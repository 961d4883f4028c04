"""What the loop and the session's revert ask of snapshots: the `Snapshot` service and its values.

A snapshot is the hash of a tree recording every file of the worktree (`.gitignore`d and very large files
aside) at one moment. The processor takes one when a step starts and one when it ends; the files that differ
become the step's `patch` part, and the first and last snapshot of a turn give its user message's
`summary.diffs`. Revert puts files back from those trees. `git_snapshot.GitSnapshot` keeps them in a git
directory of Strata's own; `NoSnapshot` (config `snapshot: false`, no `git`, or an embedder's choice)
records nothing and every part then carries no snapshot, as OpenCode's do when its snapshots are off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol, TypeAlias

from attrs import frozen

FileStatus: TypeAlias = Literal["added", "deleted", "modified"]


@frozen
class Patch:
    """The files one step changed, and the snapshot from before it (OpenCode's `patch` part's fields)."""

    hash: str
    files: tuple[str, ...]
    """Absolute paths, with `/` separators."""


@frozen
class FileDiff:
    """One file's change between two snapshots, in OpenCode's `SnapshotFileDiff` shape."""

    file: str
    """Relative to the worktree."""
    patch: str
    """The whole file as one unified-diff hunk (`unified_diff.whole_file_patch`); empty for a binary file."""
    additions: int
    deletions: int
    status: FileStatus

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "patch": self.patch,
            "additions": self.additions,
            "deletions": self.deletions,
            "status": self.status,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileDiff:
        status = data.get("status")
        return cls(
            file=str(data.get("file", "")),
            patch=str(data.get("patch", "")),
            additions=int(data.get("additions", 0)),
            deletions=int(data.get("deletions", 0)),
            status=status if status in ("added", "deleted") else "modified",
        )


def by_snapshot(patches: Sequence[Patch]) -> dict[str, list[str]]:
    """Each patched file under the snapshot a revert puts it back from: its earliest patch's."""
    grouped: dict[str, list[str]] = {}
    seen: set[str] = set()
    for patch in patches:
        for path in patch.files:
            if path not in seen:
                seen.add(path)
                grouped.setdefault(patch.hash, []).append(path)
    return grouped


class Snapshot(Protocol):
    """Records the worktree's files as trees, compares them, and puts files back from them."""

    async def track(self) -> str | None:
        """Record the worktree now; the tree's hash, or None when snapshots are off or failed."""
        ...

    async def patch(self, before: str, after: str) -> Patch:
        """The files that differ between two snapshots, as the `patch` part of the step between them."""
        ...

    async def diff(self, before: str, after: str) -> list[FileDiff]:
        """Every file changed from `before` to `after`, sorted by path, with its whole-file patch."""
        ...

    async def diff_text(self, before: str, after: str) -> str:
        """The change from `before` to `after` as `git diff` prints it (a revert's `diff` field)."""
        ...

    async def differing(self, tree: str, current: str, files: Iterable[str]) -> set[str]:
        """Which of `files` (absolute paths) differ between two snapshots (for revert's safety check)."""
        ...

    async def revert(self, patches: Sequence[Patch]) -> None:
        """Put each patched file back as it was in its patch's snapshot (the earliest patch of a file wins);
        a file that did not exist there is removed."""
        ...

    async def restore(self, tree: str, files: Iterable[str]) -> None:
        """Put `files` (absolute paths) back as they are in `tree`, removing those it does not hold."""
        ...

    async def prune(self) -> None:
        """Drop what no snapshot of the last seven days needs (OpenCode's `gc --prune=7.days`)."""
        ...


class NoSnapshot:
    """No snapshots: nothing is recorded and nothing can be reverted."""

    async def track(self) -> str | None:
        return None

    async def patch(self, before: str, after: str) -> Patch:
        return Patch(before, ())

    async def diff(self, before: str, after: str) -> list[FileDiff]:
        return []

    async def diff_text(self, before: str, after: str) -> str:
        return ""

    async def differing(self, tree: str, current: str, files: Iterable[str]) -> set[str]:
        return set()

    async def revert(self, patches: Sequence[Patch]) -> None:
        return None

    async def restore(self, tree: str, files: Iterable[str]) -> None:
        return None

    async def prune(self) -> None:
        return None
