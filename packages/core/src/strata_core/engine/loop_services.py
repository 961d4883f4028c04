"""The Loop service's interface, how a turn ends, and the few collaborators Strata's `SessionLoop` is built from.

`Loop` is what the CLI, the server and the task tool call: prompt a session, compact it, cancel or wait for
its turn; `TurnEnd.of(answer.info)` says how the turn's answer ended (each step's end is the processor's
`StepEnd`). `SessionLoop` takes its collaborators grouped by who uses them: the session's records, the turn's
targets (agent and model), the services a step runs on, and the settings it reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from attrs import field, frozen

from strata_core.message import ABORTED_ERROR, AssistantMessage

if TYPE_CHECKING:
    from strata_core.bus import Bus
    from strata_core.clock import Clock
    from strata_core.config.service import Config
    from strata_core.context.instruction import Instruction
    from strata_core.engine.compaction import CompactionService
    from strata_core.engine.plan_mode import PlanMode
    from strata_core.engine.processor import Processor
    from strata_core.engine.prompt_input import PromptRequest
    from strata_core.engine.subtask import SubtaskRunner
    from strata_core.engine.title import TitleService
    from strata_core.engine.turn_request import TurnRequestBuilder
    from strata_core.engine.turn_targets import ResolvedTurn, TurnChoice
    from strata_core.ids import Ids
    from strata_core.message import MessageWithParts
    from strata_core.project import Project
    from strata_core.session.session import Session
    from strata_core.session.store import SessionStore
    from strata_core.tool.registry import ToolRegistry

__all__ = ["Loop", "LoopSettings", "SessionRecords", "StepServices", "TurnEnd"]


class TurnEnd(StrEnum):
    """How a turn's answer ended, for whoever shows it (an exit code, a status line); each step's is a `StepEnd`."""

    FINISHED = "finished"
    FAILED = "failed"
    ABORTED = "aborted"
    """Cancelled (Ctrl-C, `loop.cancel`): stored with OpenCode's `MessageAbortedError`."""

    @classmethod
    def of(cls, answer: AssistantMessage) -> TurnEnd:
        if answer.error is None:
            return cls.FINISHED
        return cls.ABORTED if answer.error.name == ABORTED_ERROR else cls.FAILED


class Loop(Protocol):
    """The Loop service: runs a session's turns, one at a time per session."""

    async def prompt(self, request: PromptRequest) -> MessageWithParts:
        """Store the user's message and run (or join) the session's turn; its last assistant message."""
        ...

    async def resolve(self, choice: TurnChoice) -> ResolvedTurn:
        """The agent and model (with variant) a prompt would run with; what does not resolve raises."""
        ...

    async def compact(self, session_id: str) -> MessageWithParts:
        """Summarise the session now."""
        ...

    async def cancel(self, session_id: str) -> None:
        """Abort the session's running turn, if any, with the prompts waiting for it."""
        ...

    def is_running(self, session_id: str) -> bool: ...

    async def ended(self, session_id: str) -> None:
        """Return once the session's running turn, if any, has ended."""
        ...


@frozen
class SessionRecords:
    """Where a turn reads and writes the session, and what stamps its records."""

    store: SessionStore
    sessions: Session
    bus: Bus
    clock: Clock
    ids: Ids


@frozen
class StepServices:
    """What one step of a turn runs on: the request, the model call, and the tasks beside it."""

    requests: TurnRequestBuilder
    processor: Processor
    compaction: CompactionService
    title: TitleService
    subtasks: SubtaskRunner
    instructions: Instruction
    registry: ToolRegistry
    plan_mode: PlanMode | None = None
    """Experimental plan mode (stored reminders, the plan file); None or switched off: the default reminders."""


@frozen
class LoopSettings:
    """What the loop reads of the project and its configuration."""

    config: Config
    project: Project
    env: Mapping[str, str] = field(factory=dict)
