"""Where a session's plan lives in experimental plan mode: one Markdown file per session.

OpenCode writes `{worktree}/.opencode/plans/{session.time.created}-{slug}.md` in a repository, and
`{data}/plans/...` outside one (reference 5). Strata keeps the file name and the data-dir fallback, and picks
the repository directory by the project's convention:
- `.opencode/plans/` when the worktree follows OpenCode's (it has a `.opencode/` directory, or an
  `opencode.json`/`opencode.jsonc`), so OpenCode and Strata users of one project find plans in one place;
- `.strata/plans/` otherwise.
A plan that already exists in either directory stays where it is, so a session's plan never moves when the
project's layout changes under it. The plan agent may edit both directories (`context/agent.py`).
"""

from __future__ import annotations

from pathlib import Path

from strata_core.config.paths import StrataPaths
from strata_core.project import ProjectInfo
from strata_core.session_info import SessionInfo

STRATA_PLANS = Path(".strata") / "plans"
OPENCODE_PLANS = Path(".opencode") / "plans"
OPENCODE_MARKERS = ("opencode.json", "opencode.jsonc")


def plan_file_name(session: SessionInfo) -> str:
    return f"{session.time.created}-{session.slug}.md"


def follows_opencode(worktree: Path) -> bool:
    """Whether the project is set up the OpenCode way: a `.opencode/` directory or an `opencode.json(c)`."""
    return (worktree / ".opencode").is_dir() or any((worktree / name).is_file() for name in OPENCODE_MARKERS)


def repository_plans_dir(worktree: Path) -> Path:
    return worktree / (OPENCODE_PLANS if follows_opencode(worktree) else STRATA_PLANS)


def plan_file(project: ProjectInfo, paths: StrataPaths, session: SessionInfo) -> Path:
    """The session's plan file (it may not exist yet). Blocking: it looks at the worktree."""
    name = plan_file_name(session)
    if project.vcs is None:
        return paths.plans / name
    for existing in (project.worktree / STRATA_PLANS / name, project.worktree / OPENCODE_PLANS / name):
        if existing.is_file():
            return existing
    return repository_plans_dir(project.worktree) / name
