"""Asking a person for permission, and remembering their "always" answers for the session.

The rules themselves (evaluate, merge, wildcards) are `permission.py`; this module is the flow around
them (OpenCode's `Permission.ask`/`reply`, reference 12.7-12.8), with one deliberate change: configured
rules are evaluated first and the session's remembered approvals are consulted only where the config says
`ask`, so an "always" can never override a configured `deny` (OpenCode evaluates both as one ruleset,
where a later approval wins).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

import anyio
from attrs import define, field

from strata_core.bus import Bus, PermissionAsked, PermissionReplied, PermissionReply, PermissionRequest
from strata_core.ids import Ids
from strata_core.logging import get_logger
from strata_core.permission.rules import (
    CorrectedError,
    DeniedError,
    NoResponderError,
    PermissionRefusedError,
    RejectedError,
    Rule,
    Ruleset,
    evaluate,
    wildcard_match,
)

__all__ = ["PermissionFlow", "PermissionMode", "PermissionReply", "PermissionRequest"]

log = get_logger(__name__)

PermissionMode: TypeAlias = Literal["interactive", "non_interactive", "auto"]
_Decision: TypeAlias = Literal["allow", "deny", "ask"]


@define
class _Pending:
    request: PermissionRequest
    ruleset: Ruleset
    answered: anyio.Event = field(factory=anyio.Event)
    error: PermissionRefusedError | None = None


@define
class PermissionFlow:
    """Decides tool-call permissions: by rule, by a remembered "always", or by asking through the bus.

    `mode` says who answers an `ask`: a person replying through `reply()` (interactive), nobody (fail at
    once with `NoResponderError`, so a non-interactive run never hangs), or an automatic yes (auto).
    `reply_timeout` (seconds) bounds an interactive wait: a question nobody answers in time fails the call
    with `NoResponderError` (the server sets it; a person at the terminal is given all the time they need).
    """

    bus: Bus
    ids: Ids
    mode: PermissionMode = "interactive"
    reply_timeout: float | None = None
    _pending: dict[str, _Pending] = field(factory=dict, init=False, repr=False)
    _approved: dict[str, list[Rule]] = field(factory=dict, init=False, repr=False)

    async def ask(
        self,
        session_id: str,
        permission: str,
        patterns: Sequence[str],
        always: Sequence[str],
        metadata: Mapping[str, Any],
        ruleset: Ruleset,
        *,
        message_id: str | None = None,
        call_id: str | None = None,
    ) -> None:
        """Return when the call may go ahead; raise a `PermissionRefusedError` saying why it may not."""
        decision = self._decide(session_id, permission, patterns, ruleset)
        if decision == "allow" or (decision == "ask" and self.mode == "auto"):
            return
        if decision == "ask" and self.mode == "non_interactive":
            raise NoResponderError(permission, patterns)
        request = PermissionRequest(
            id=self.ids.new("per"),
            session_id=session_id,
            permission=permission,
            patterns=tuple(patterns),
            always=tuple(always),
            metadata=dict(metadata),
            message_id=message_id,
            call_id=call_id,
        )
        await self._wait_for_reply(request, ruleset)

    def reply(self, request_id: str, reply: PermissionReply, message: str | None = None) -> None:
        """Answer a pending request. Unknown ids (already answered, or cancelled) are ignored."""
        pending = self._pending.get(request_id)
        if pending is None:
            log.debug("permission.reply_ignored", request_id=request_id, reply=reply)
            return
        request = pending.request
        if reply == "reject":
            self._resolve(pending, reply, CorrectedError(message) if message else RejectedError())
            # A "no" stops the turn, so the session's other questions are moot.
            for other in self._session_pending(request.session_id):
                self._resolve(other, "reject", RejectedError())
            return
        if reply == "always":
            approvals = self._approved.setdefault(request.session_id, [])
            approvals.extend(Rule(request.permission, pattern, "allow") for pattern in request.always)
        self._resolve(pending, reply, None)
        if reply == "always":
            for other in self._session_pending(request.session_id):
                decision = self._decide(
                    request.session_id, other.request.permission, other.request.patterns, other.ruleset
                )
                if decision == "allow":
                    self._resolve(other, "always", None)

    def pending(self, session_id: str | None = None) -> list[PermissionRequest]:
        """Requests still waiting for an answer (for a renderer that subscribed late)."""
        return [p.request for p in self._pending.values() if session_id in (None, p.request.session_id)]

    def approvals(self, session_id: str) -> Ruleset:
        """What "always" answers have approved in this session so far."""
        return tuple(self._approved.get(session_id, ()))

    def _decide(self, session_id: str, permission: str, patterns: Sequence[str], ruleset: Ruleset) -> _Decision:
        needs_asking = False
        approvals = self._approved.get(session_id, ())
        for pattern in patterns:
            action = evaluate(permission, pattern, ruleset).action
            if action == "deny":
                raise DeniedError([r for r in ruleset if wildcard_match(permission, r.permission)])
            if action == "ask" and evaluate(permission, pattern, approvals).action != "allow":
                needs_asking = True
        return "ask" if needs_asking else "allow"

    async def _wait_for_reply(self, request: PermissionRequest, ruleset: Ruleset) -> None:
        pending = _Pending(request, ruleset)
        self._pending[request.id] = pending
        self.bus.publish(PermissionAsked(request))
        try:
            with anyio.move_on_after(self.reply_timeout if self.reply_timeout is not None else math.inf):
                await pending.answered.wait()
            if not pending.answered.is_set():
                reason = f"nobody answered within {self.reply_timeout:g} s"
                pending.error = NoResponderError(request.permission, request.patterns, reason=reason)
        finally:
            if self._pending.pop(request.id, None) is not None:
                # Cancelled before an answer (the turn was aborted): tell renderers to drop the question.
                self.bus.publish(PermissionReplied(request.session_id, request.id, "reject"))
        if pending.error is not None:
            raise pending.error

    def _session_pending(self, session_id: str) -> list[_Pending]:
        return [p for p in self._pending.values() if p.request.session_id == session_id]

    def _resolve(self, pending: _Pending, reply: PermissionReply, error: PermissionRefusedError | None) -> None:
        request = pending.request
        del self._pending[request.id]
        pending.error = error
        pending.answered.set()
        self.bus.publish(PermissionReplied(request.session_id, request.id, reply))
