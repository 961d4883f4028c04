"""Who answers a permission `ask`: an approver, an async callable from the question to its answer.

    async def approver(request: PermissionRequest) -> Approval:
        return "once" if request.permission == "read" else Reject("Read files only.")

An answer is `"once"` (this call), `"always"` (this call and, for the rest of the session, the request's
`always` patterns), `"reject"` (no: the turn stops), `Reject(message)` (no, and the model is told what to do
instead), or `NoAnswer(reason)` (nobody can answer: the call fails with `reason`, the turn stops). The
permission flow evaluates the rules first; an approver is only asked what the rules leave to a person.

The library's default, a `Refuser`, answers at once with `NoAnswer` in the library's words (a front end
gives its own) and remembers each refusal, so an `ask` never waits on nobody; `approve_all` says "once" to
everything the rules do not deny. `BusApprover` (`permission/bus_approver.py`)
is the one for front ends that answer later: it publishes the question on the bus and waits for `reply()`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, TypeAlias

from attrs import define, field, frozen

from strata_core.bus import PermissionRequest
from strata_core.permission.rules import NoResponderError, no_approver_reason

__all__ = ["Approval", "Approver", "NoAnswer", "Refuser", "Reject", "approve_all", "asks_someone"]


@frozen
class Reject:
    """No, with what the model should do instead (it reads `message`)."""

    message: str


@frozen
class NoAnswer:
    """Nobody can answer this question; `reason` says why (the model reads it)."""

    reason: str


Approval: TypeAlias = Literal["once", "always", "reject"] | Reject | NoAnswer
Approver: TypeAlias = Callable[[PermissionRequest], Awaitable[Approval]]


@define
class Refuser:
    """Nobody is asked: each ask is refused at once with `reason` (the model reads it), and remembered in
    `refusals` for the front end to report (`strata run` exits non-zero with them)."""

    reason: str = field(factory=no_approver_reason)
    refusals: list[NoResponderError] = field(factory=list, init=False)

    async def __call__(self, request: PermissionRequest) -> Approval:
        self.refusals.append(NoResponderError(request.permission, request.patterns, reason=self.reason))
        return NoAnswer(self.reason)


async def approve_all(request: PermissionRequest) -> Approval:
    """Approves, once, everything the rules leave to a person (what they deny stays denied)."""
    return "once"


def asks_someone(approver: Approver) -> bool:
    """Whether a question may reach someone who decides (neither of the library's answers is a person's)."""
    return not isinstance(approver, Refuser) and approver is not approve_all
