"""Worktree snapshots: the `patch` part of each step, a turn's diffs, and revert/unrevert.

- `contract`: the `Snapshot` service (Protocol), its values (`Patch`, `FileDiff`) and `NoSnapshot`;
- `git_snapshot`: `GitSnapshot`, the default, in a git directory of Strata's own under its data directory;
- `unified_diff`: a file's change as OpenCode's diffs hold it (the whole file in one hunk);
- `summary`: a turn's `summary.diffs` and the session's totals;
- `revert`: taking a session's changes back from a message on, and putting them back.
"""
