"""The approver of front ends that answer later: the question goes out on the bus, the answer comes back by `reply`.

The server (a reply over HTTP) and the interactive terminal (a person at a prompt) use it: each question is
published as `PermissionAsked`, stays in `pending()` until `reply()` answers it, and is closed with
`PermissionReplied` (also when its turn is cancelled, or the flow settles it: "reject" then, or "always"
when another answer's "always" covers it), the events OpenCode's clients follow.
"""

from __future__ import annotations

import anyio
from attrs import define, field

from strata_core.bus import Bus, PermissionAsked, PermissionReplied, PermissionReply, PermissionRequest
from strata_core.logging import get_logger
from strata_core.permission.approval import Approval, Reject

__all__ = ["BusApprover"]

log = get_logger(__name__)


@define
class _Question:
    request: PermissionRequest
    answered: anyio.Event = field(factory=anyio.Event)
    answer: Approval = "reject"


@define
class BusApprover:
    """An `Approver` that asks through the bus and waits, without limit, for `reply()` (the runtime's
    `approval_timeout` bounds the wait)."""

    bus: Bus
    _questions: dict[str, _Question] = field(factory=dict, init=False, repr=False)

    async def __call__(self, request: PermissionRequest) -> Approval:
        question = _Question(request)
        self._questions[request.id] = question
        self.bus.publish(PermissionAsked(request))
        try:
            await question.answered.wait()
        finally:
            if self._questions.pop(request.id, None) is not None:
                # Cancelled before an answer (the turn was aborted, or the wait timed out): drop the question.
                self.bus.publish(PermissionReplied(request.session_id, request.id, "reject"))
        return question.answer

    def reply(self, request_id: str, reply: PermissionReply, message: str | None = None) -> None:
        """Answer a pending question. Unknown ids (already answered, or cancelled) are ignored."""
        question = self._questions.pop(request_id, None)
        if question is None:
            log.debug("permission.reply_ignored", request_id=request_id, reply=reply)
            return
        question.answer = Reject(message) if reply == "reject" and message else reply
        question.answered.set()
        self.bus.publish(PermissionReplied(question.request.session_id, request_id, reply))

    def withdraw(self, request_id: str, reply: PermissionReply) -> None:
        """Close a question the permission flow settled itself (another answer covered it)."""
        self.reply(request_id, reply)

    def pending(self, session_id: str | None = None) -> list[PermissionRequest]:
        """Questions still waiting for an answer (for a renderer that subscribed late)."""
        return [q.request for q in self._questions.values() if session_id in (None, q.request.session_id)]
