"""Worktree snapshots: the `patch` part of each step, a turn's diffs, and revert/unrevert.

- `contract`: the `Snapshot` service (Protocol), its values (`Patch`, `FileDiff`) and `NoSnapshot`;
- `git_snapshot`: `GitSnapshot`, the default, in a git directory of Strata's own under its data directory;
- `untracked_cache`: whether a snapshot may skip git's walk for new files (stat data of what git walked);
- `unified_diff`: a file's change as OpenCode's diffs hold it (the whole file in one hunk);
- `file_names`: names between git, the file system and stored text (`split_nul`, `name_bytes`: a name that is
  not UTF-8 kept exact; shown with U+FFFD where it is stored or sent);
- `setup`: whether a runtime takes snapshots, and where.

What a session makes of them (a turn's `summary.diffs`, revert and unrevert) is in `strata_core.session`
(`summary`, `revert`), which is above this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.snapshot.contract import FileDiff, NoSnapshot, Patch, Snapshot
    from strata_core.snapshot.file_names import name_bytes, split_nul
    from strata_core.snapshot.git_snapshot import GitSnapshot, SnapshotError, snapshot_dir

__all__ = [
    "FileDiff",
    "GitSnapshot",
    "NoSnapshot",
    "Patch",
    "Snapshot",
    "SnapshotError",
    "name_bytes",
    "snapshot_dir",
    "split_nul",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FileDiff": "strata_core.snapshot.contract",
        "GitSnapshot": "strata_core.snapshot.git_snapshot",
        "NoSnapshot": "strata_core.snapshot.contract",
        "Patch": "strata_core.snapshot.contract",
        "Snapshot": "strata_core.snapshot.contract",
        "SnapshotError": "strata_core.snapshot.git_snapshot",
        "name_bytes": "strata_core.snapshot.file_names",
        "snapshot_dir": "strata_core.snapshot.git_snapshot",
        "split_nul": "strata_core.snapshot.file_names",
    },
)
