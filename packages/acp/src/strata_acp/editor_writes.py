"""Handing the editor each file an edit wrote (`fs/write_text_file`), as OpenCode does, so an open buffer shows
the new content.

The request is a notice: the turn sends it and goes on. Its answer is awaited in the background (bounded), so an
editor that never answers, or answers with an error, holds up nothing: not the turn's response, not
`session/cancel`, not `session/close`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from acp import RequestError
from attrs import define
from pydantic import ValidationError

from strata_core.logging import get_logger
from strata_core.message import ToolPart, ToolStateCompleted

if TYPE_CHECKING:
    from acp.interfaces import Client
    from anyio.abc import TaskGroup

log = get_logger(__name__)

WRITING_TOOLS = frozenset({"write", "edit", "multiedit", "apply_patch", "patch"})
ANSWER_WAIT = 60.0
"""Seconds an answer is waited for before the request is forgotten (nothing depends on it)."""


@define
class EditorWrites:
    """The `fs/write_text_file` notices of one connection."""

    background: TaskGroup
    """Where the answers are awaited."""
    client: Client | None = None
    enabled: bool = False
    """The editor offers `fs/write_text_file` (its `initialize` capabilities)."""

    async def tell(self, session_id: str, part: ToolPart) -> None:
        """Send the editor the file `part` (a finished edit) wrote, if it wrote one."""
        path = part.state.metadata.get("filepath") if isinstance(part.state, ToolStateCompleted) else None
        if not (self.enabled and self.client and part.tool in WRITING_TOOLS and isinstance(path, str)):
            return
        try:
            content = await anyio.Path(path).read_text()
        except OSError as error:
            log.warning("acp.write_text_file_failed", path=path, error=str(error))
            return
        # The new task puts the request on the wire at its first step, which runs before the turn's next
        # update (already queued behind it): the notice still belongs to the turn that caused it.
        self.background.start_soon(self._send, self.client, session_id, path, content)
        await anyio.lowlevel.checkpoint()

    async def _send(self, client: Client, session_id: str, path: str, content: str) -> None:
        with anyio.move_on_after(ANSWER_WAIT):
            try:
                await client.write_text_file(session_id=session_id, path=path, content=content)
            except (RequestError, ValidationError, ConnectionError) as error:
                log.warning("acp.write_text_file_failed", path=path, error=str(error))
