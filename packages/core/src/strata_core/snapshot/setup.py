"""Which snapshots a runtime takes: `GitSnapshot` for the project's worktree, or none (and why).

OpenCode takes snapshots only inside a git repository; Strata also takes them in a plain directory (its
own tree, never a `.git` of the user's), except the home directory or `/`, whose snapshot would copy
everything the user has. Without `git` on PATH the feature is off for the run, said once on stderr.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from strata_core.config.paths import StrataPaths
from strata_core.logging import get_logger
from strata_core.project import ProjectInfo
from strata_core.snapshot.git_snapshot import GitSnapshot, snapshot_dir

log = get_logger(__name__)


def project_snapshots(
    project: ProjectInfo, paths: StrataPaths, env: Mapping[str, str], leave_out: Callable[[str], bool]
) -> GitSnapshot | None:
    """The snapshots of `project`'s worktree, leaving out the files `leave_out` names (by file name), or None
    where none can or should be taken."""
    git = shutil.which("git", path=env.get("PATH"))
    if git is None:
        log.notice(
            "snapshot.git_missing",
            says="git is not on PATH, so this run takes no snapshots (no diffs, no revert or undo); "
            'install git, or set "snapshot": false in strata.json to turn them off without this warning',
        )
        return None
    worktree = project.worktree if project.vcs == "git" else project.directory
    home = env.get("HOME")
    if worktree == Path("/") or (home and worktree == Path(home)):
        log.info("snapshot.skipped", worktree=str(worktree), reason="home or root directory")
        return None
    scope = project.directory.relative_to(worktree).as_posix() if project.directory != worktree else "."
    gitdir = snapshot_dir(paths.data, project.id, worktree)
    return GitSnapshot(gitdir, worktree, env, git=git, scope=scope, leave_out=leave_out)
