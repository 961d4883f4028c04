"""Deciding a tool call's permission: by rule, by a remembered "always", or by asking the approver.

The rules themselves (evaluate, merge, wildcards) are `rules.py`; this module is the flow around them
(OpenCode's `Permission.ask`/`reply`, reference 12.7-12.8), with one deliberate change: configured rules are
evaluated first and the session's remembered approvals are consulted only where the config says `ask`, so an
"always" can never override a configured `deny` (OpenCode evaluates both as one ruleset, where a later
approval wins). Who answers is the runtime's approver (`approval.py`); the flow only asks it what the rules
leave open, and settles the session's other open questions an answer decides ("reject" stops them all; an
"always" approves those it now covers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

import anyio
from attrs import define, field

from strata_core.bus import PermissionReply, PermissionRequest
from strata_core.ids import Ids
from strata_core.permission.approval import Approval, Approver, NoAnswer, Refuser, Reject
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

__all__ = ["Permission", "PermissionFlow", "PermissionReply", "PermissionRequest"]

_Decision: TypeAlias = Literal["allow", "deny", "ask"]


class Permission(Protocol):
    """The Permission service: may this call go ahead? (What the tool runner and plan_exit ask.)"""

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
        ...

    def approvals(self, session_id: str) -> Ruleset:
        """What "always" answers have approved in this session so far."""
        ...


@runtime_checkable
class Withdrawing(Protocol):
    """An approver with questions open elsewhere (a bus), closed when the flow settles them itself."""

    def withdraw(self, request_id: str, reply: PermissionReply) -> None: ...


@define
class _Open:
    request: PermissionRequest
    ruleset: Ruleset
    scope: anyio.CancelScope = field(factory=anyio.CancelScope)
    settled: PermissionRefusedError | Literal["open"] | None = "open"
    """"open" until another answer decides this question: None (allowed) or the error to raise."""


@define
class PermissionFlow:
    """Decides tool-call permissions: by rule, by a remembered "always", or by asking `approver`.

    `approval_timeout` (seconds) bounds the wait for an approver that may not answer (the server sets it;
    a person at the terminal is given all the time they need): unanswered in time, the call is refused with
    `NoResponderError` saying so.
    """

    ids: Ids
    approver: Approver = field(factory=Refuser)
    approval_timeout: float | None = None
    _open: dict[str, _Open] = field(factory=dict, init=False, repr=False)
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
        if self._decide(session_id, permission, patterns, ruleset) == "allow":
            return
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
        error = await self._ask_approver(_Open(request, ruleset))
        if error is not None:
            raise error

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

    async def _ask_approver(self, question: _Open) -> PermissionRefusedError | None:
        request = question.request
        self._open[request.id] = question
        answer: Approval | None = None
        try:
            with anyio.move_on_after(self.approval_timeout):
                with question.scope:
                    answer = await self.approver(request)
        finally:
            del self._open[request.id]
        if question.settled != "open":
            return question.settled
        if answer is None:
            reason = f"nobody answered within {self.approval_timeout:g} s"
            return NoResponderError(request.permission, request.patterns, reason=reason)
        return self._answered(request, answer)

    def _answered(self, request: PermissionRequest, answer: Approval) -> PermissionRefusedError | None:
        if isinstance(answer, NoAnswer):
            return NoResponderError(request.permission, request.patterns, reason=answer.reason)
        if isinstance(answer, Reject) or answer == "reject":
            # A "no" stops the turn, so the session's other questions are moot.
            for other in self._session_open(request.session_id):
                self._settle(other, RejectedError(), "reject")
            return CorrectedError(answer.message) if isinstance(answer, Reject) else RejectedError()
        if answer == "always":
            approvals = self._approved.setdefault(request.session_id, [])
            approvals.extend(Rule(request.permission, pattern, "allow") for pattern in request.always)
            for other in self._session_open(request.session_id):
                asked = other.request
                if self._decide(request.session_id, asked.permission, asked.patterns, other.ruleset) == "allow":
                    self._settle(other, None, "always")
        return None

    def _session_open(self, session_id: str) -> list[_Open]:
        return [q for q in self._open.values() if q.request.session_id == session_id and q.settled == "open"]

    def _settle(self, question: _Open, outcome: PermissionRefusedError | None, reply: PermissionReply) -> None:
        question.settled = outcome
        approver: object = self.approver
        if isinstance(approver, Withdrawing):
            approver.withdraw(question.request.id, reply)
        else:
            question.scope.cancel()
