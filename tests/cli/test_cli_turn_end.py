"""The CLI reads how a turn ended from the typed `TurnEnd`: Ctrl-C or an aborted answer is an interruption."""

from __future__ import annotations

from engine_fakes import assistant

from strata_cli.turn import TurnOutcome
from strata_core.engine.loop_services import TurnEnd
from strata_core.message import ABORTED_ERROR, MessageError, MessageWithParts


def _outcome(interrupted: bool = False, error: MessageError | None = None) -> TurnOutcome:
    return TurnOutcome(MessageWithParts(assistant(finish="stop", error=error), []), interrupted)


def test_a_turn_outcome_names_its_end() -> None:
    assert _outcome().end is TurnEnd.FINISHED
    assert _outcome(interrupted=True).end is TurnEnd.ABORTED  # Ctrl-C, even with a complete answer
    assert _outcome(error=MessageError(ABORTED_ERROR, "The operation was aborted.")).end is TurnEnd.ABORTED
    assert _outcome(error=MessageError("APIError", "overloaded")).end is TurnEnd.FAILED
