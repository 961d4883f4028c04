"""Typed ends: how a step ends (`StepEnd`, what the processor returns) and how a turn's answer ended (`TurnEnd`)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from attrs import define, field
from engine_fakes import FakeResolver, assistant

from strata_core.engine.loop import SessionLoop
from strata_core.engine.loop_services import TurnEnd
from strata_core.engine.processor import Processor, StepEnd, StepInput, StepOutcome
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import ABORTED_ERROR, AssistantMessage, MessageError
from strata_core.runtime import open_runtime
from strata_providers.testing import ScriptedModel


@define
class RecordingProcessor:
    """The runtime's processor, noting each step's end."""

    inner: Processor
    ends: list[StepEnd] = field(factory=list)

    async def process(self, step: StepInput) -> StepOutcome:
        outcome = await self.inner.process(step)
        self.ends.append(outcome.result)
        return outcome


def test_an_answers_error_says_how_its_turn_ended() -> None:
    assert TurnEnd.of(assistant(finish="stop")) is TurnEnd.FINISHED
    assert TurnEnd.of(assistant(error=MessageError(ABORTED_ERROR, "aborted"))) is TurnEnd.ABORTED
    assert TurnEnd.of(assistant(error=MessageError("APIError", "rate limited"))) is TurnEnd.FAILED


def test_step_ends_keep_opencodes_words() -> None:
    assert [end.value for end in StepEnd] == ["continue", "stop", "compact"]


@pytest.mark.anyio
async def test_the_processor_reports_a_step_end(tmp_path: Path) -> None:
    """Both steps continue (a finished answer too: the loop's exit test is what ends the turn), typed."""
    model = ScriptedModel([{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]}, {"text": "done"}])
    project = tmp_path / "project"
    project.mkdir()
    env = {"HOME": str(tmp_path / "home")}
    async with open_runtime(project, env, models=FakeResolver({model.info.ref: model}), store="memory") as rt:
        loop = rt.loop
        assert isinstance(loop, SessionLoop)
        recording = RecordingProcessor(loop.steps.processor)
        loop.steps = attrs.evolve(loop.steps, processor=recording)
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("look")]))
    seen = recording.ends
    assert seen == [StepEnd.CONTINUE, StepEnd.CONTINUE] and all(isinstance(end, StepEnd) for end in seen)
    assert isinstance(answer.info, AssistantMessage) and TurnEnd.of(answer.info) is TurnEnd.FINISHED
