"""One run of a session's loop: how it is cancelled and awaited, what it keeps from one step to the next,
and how a prompt waiting for an aborted run tells whether the session was aborted again since it arrived."""

from __future__ import annotations

import anyio
from attrs import define, field, frozen

from strata_core.context.instruction_urls import UrlCache
from strata_core.engine.turn_request import ConvertedHistory
from strata_core.message import MessageWithParts
from strata_core.session_info import SessionInfo


@define
class LoopRun:
    scope: anyio.CancelScope = field(factory=anyio.CancelScope)
    done: anyio.Event = field(factory=anyio.Event)
    new_input: bool = False
    """A prompt arrived while the loop ran: look again before stopping."""
    aborts: int = 0
    """How many times the run was asked to abort (`SessionLoop.cancel`)."""
    session: SessionInfo | None = None
    messages: list[MessageWithParts] | None = None
    """The session's messages as last read. After a plain model step its answer, as the processor stored it,
    is appended instead of reading the whole session again (a full read costs more as the session grows)."""
    history: list[MessageWithParts] | None = None
    """`filter_compacted` of `messages` as the last step saw it."""
    converted: ConvertedHistory = field(factory=ConvertedHistory)
    just_compacted: bool = False
    """A compaction finished and no step has fitted since: overflowing again must stop, not compact again."""
    answered: MessageWithParts | None = None
    """The answer the last step wrote, when it wrote nothing else; otherwise the next read is a full one."""
    urls: UrlCache = field(factory=UrlCache)
    """The instruction URLs' answers for this run: each step's system prompt reuses them (one fetch a turn)."""
    finished_snapshot: tuple[int, str] | None = None
    """The last model step's number and the snapshot it finished with: the start of the step right after it."""

    def abort_mark(self) -> AbortMark:
        """How often the run was aborted so far, to compare with later."""
        return AbortMark(self, self.aborts)


@frozen
class AbortMark:
    run: LoopRun
    aborts: int

    def aborted_again(self) -> bool:
        """The run was asked to abort since this mark was taken."""
        return self.run.aborts > self.aborts
