"""Permission questions asked of the editor: the runtime's approver sends `session/request_permission`.

The question names the tool call it holds up (its `toolCallId`, kind and files) and offers OpenCode's three
options, allow once / always allow / reject; the answer goes back to the permission service as `"once"`,
`"always"` (the request's patterns are then allowed for the rest of the session) or `"reject"`. A client
that cancels the question (its outcome `cancelled`, as on `session/cancel`) rejects it, and so does an answer
that fails (an error, a malformed result, the connection closing). An edit's question
carries its diff as ACP diff content, so the editor can show the change before it is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    FileEditToolCallContent,
    PermissionOption,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallUpdate,
)
from attrs import define
from pydantic import ValidationError

from strata_acp.updates import tool_kind
from strata_core.logging import get_logger

if TYPE_CHECKING:
    from acp.interfaces import Client

    from strata_core.bus import PermissionRequest
    from strata_core.permission import Approval

OPTIONS = [
    PermissionOption(option_id="once", kind="allow_once", name="Allow once"),
    PermissionOption(option_id="always", kind="allow_always", name="Always allow"),
    PermissionOption(option_id="reject", kind="reject_once", name="Reject"),
]
ANSWERS: Mapping[str, Approval] = {"once": "once", "always": "always", "reject": "reject"}

log = get_logger(__name__)


@define
class ClientApprover:
    """The runtime's approver once the editor is connected (`connect`); before that nothing can ask."""

    client: Client | None = None

    def connect(self, client: Client) -> None:
        self.client = client

    async def __call__(self, request: PermissionRequest) -> Approval:
        if self.client is None:
            return "reject"
        try:
            answer = await self.client.request_permission(
                session_id=request.session_id, tool_call=question_of(request), options=OPTIONS
            )
        except (RequestError, ValidationError, ConnectionError) as error:
            # An error answer, one that is no answer, or an editor that left: nobody said yes.
            log.warning("acp.permission_failed", session_id=request.session_id, error=str(error))
            return "reject"
        outcome = answer.outcome
        if isinstance(outcome, AllowedOutcome):
            return ANSWERS.get(outcome.option_id, "reject")
        return "reject"


def question_of(request: PermissionRequest) -> ToolCallUpdate:
    """The tool call a permission request holds up, as the editor shows it."""
    metadata: Mapping[str, Any] = request.metadata
    path = metadata.get("filepath")
    title = str(path or metadata.get("command") or ", ".join(request.patterns) or request.permission)
    diff = metadata.get("diff")
    content: list[ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent] | None = None
    if isinstance(path, str) and isinstance(diff, str):
        content = [diff_content(path, diff)]
    return ToolCallUpdate(
        tool_call_id=request.call_id or request.id,
        title=title,
        kind=tool_kind(request.permission),  # a permission is named after the tool that asks it
        status="pending",
        locations=[ToolCallLocation(path=path)] if isinstance(path, str) else [],
        raw_input=dict(metadata) or {"patterns": list(request.patterns)},
        content=content,
    )


def diff_content(path: str, diff: str) -> FileEditToolCallContent:
    """A unified diff as ACP diff content: the text its hunks show before (context and `-` lines) and after
    (context and `+` lines). For a new file that is the whole file; for an edit, the changed regions."""
    before: list[str] = []
    after: list[str] = []
    in_hunk = False
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("-"):
            before.append(line[1:])
        elif in_hunk and line.startswith("+"):
            after.append(line[1:])
        elif in_hunk and line.startswith(" "):
            before.append(line[1:])
            after.append(line[1:])
    return FileEditToolCallContent(type="diff", path=path, old_text="".join(before), new_text="".join(after))
