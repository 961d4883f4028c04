"""Which session `-c` continues: this project's latest, and outside git this directory's latest first.

Outside a git repository every directory falls under OpenCode's one `global` project, so "the project's latest
session" may belong to a directory far away (OpenCode resumes it). The session started in the current directory
is the one a person means; another directory's is taken only when this one has none, and the line that says
which session was resumed names its directory then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from strata_core.runtime import Runtime
    from strata_core.session_info import SessionInfo


async def session_to_continue(runtime: Runtime) -> SessionInfo | None:
    """The root session `-c` resumes, or None when the project has none."""
    roots = [s for s in await runtime.sessions.list_sessions() if s.parent_id is None]
    if runtime.project.vcs is None:
        here = str(runtime.project.directory)
        roots = [s for s in roots if s.directory == here] or roots
    return roots[0] if roots else None


def continued_line(runtime: Runtime, session: SessionInfo) -> str:
    """`Continuing ses_… "title"`, with the session's directory when it is not the current one."""
    where = "" if session.directory == str(runtime.project.directory) else f" (started in {session.directory})"
    return f'Continuing {session.id} "{session.title}"{where}'
