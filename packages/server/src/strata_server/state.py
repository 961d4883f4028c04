"""What every route works with: the open runtime, the server's settings, its turns, its event hub and its TUI
control queue."""

from __future__ import annotations

from typing import Any

from attrs import field, frozen
from starlette.requests import Request

from strata_core.permission import BusApprover
from strata_core.runtime import Runtime
from strata_server.body import read_json
from strata_server.event_hub import EventHub
from strata_server.settings import ServerSettings
from strata_server.tui_control import TuiControl
from strata_server.turns import Turns


@frozen
class ServerState:
    runtime: Runtime
    settings: ServerSettings
    turns: Turns
    hub: EventHub
    started_ms: int
    """When the server started (the project's creation time while it has no sessions)."""
    questions: BusApprover
    """The runtime's approver: the permission questions waiting for an answer over HTTP."""
    tui: TuiControl = field(factory=TuiControl)
    """The TUI control queue (`/tui/control/*`)."""

    async def body(
        self, request: Request, operation_id: str, *, optional: bool = False, validate: bool = True
    ) -> dict[str, Any]:
        max_bytes = self.settings.max_body_bytes
        return await read_json(request, operation_id, max_bytes, optional=optional, validate=validate)


def server_state(request: Request) -> ServerState:
    state = request.app.state.strata
    assert isinstance(state, ServerState)
    return state
