"""The embedder's approver answers a custom tool's `ask`; without one the ask is refused at once in the library's
words; an approver that may not answer is bounded by `approval_timeout`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from custom_tools import RecordingTool

from strata_core.bus import PermissionRequest
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import ToolPart, ToolStateCompleted, ToolStateError
from strata_core.permission.approval import Approval, Reject
from strata_core.runtime import Runtime, open_runtime
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio

ASK_DEPLOY = '{"permission": {"deploy": "ask"}}'


def _deploy_tool() -> RecordingTool:
    """A custom tool whose calls the config says to ask about."""
    return RecordingTool("deploy", "target", "Deploy the project to a target.", "deployed to {}")


def _deploys(*targets: str) -> ScriptedModel:
    calls = [{"id": f"c{i}", "name": "deploy", "arguments": {"target": t}} for i, t in enumerate(targets)]
    return ScriptedModel([{"tool_calls": calls}, {"text": "Done."}])


async def _turn(tmp_path: Path, model: ScriptedModel, tool: RecordingTool, **options: Any) -> list[ToolPart]:
    (tmp_path / "strata.json").write_text(ASK_DEPLOY)
    runtime: Runtime
    async with open_runtime(
        tmp_path, {"HOME": str(tmp_path)}, models=ScriptedResolver(model), store="memory", tools=[tool], **options
    ) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("deploy")]))
        history = await runtime.sessions.messages(session.id)
    return [part for message in history for part in message.parts if isinstance(part, ToolPart)]


async def test_the_embedders_approver_is_asked_and_its_answers_decide(tmp_path: Path) -> None:
    asked: list[PermissionRequest] = []

    async def approver(request: PermissionRequest) -> Approval:
        asked.append(request)
        return "once" if request.patterns == ("staging",) else Reject("Deploy to staging only.")

    tool = _deploy_tool()
    parts = await _turn(tmp_path, _deploys("staging", "production"), tool, approver=approver)
    assert sorted((r.permission, r.patterns) for r in asked) == [("deploy", ("production",)), ("deploy", ("staging",))]
    assert tool.calls == ["staging"]
    done, refused = sorted(parts, key=lambda part: part.call_id)
    assert isinstance(done.state, ToolStateCompleted) and done.state.output == "deployed to staging"
    assert isinstance(refused.state, ToolStateError)
    assert refused.state.error.endswith("with the following feedback: Deploy to staging only.")


async def test_without_an_approver_an_ask_is_refused_at_once_in_the_librarys_words(tmp_path: Path) -> None:
    tool = _deploy_tool()
    (part,) = await _turn(tmp_path, _deploys("staging"), tool)
    assert tool.calls == [] and isinstance(part.state, ToolStateError)
    assert "needs approval, but no one is here to approve it" in part.state.error
    assert "--auto" not in part.state.error


async def test_an_approver_that_does_not_answer_in_time_is_refused_saying_so(tmp_path: Path) -> None:
    async def silent(request: PermissionRequest) -> Approval:
        import anyio

        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    tool = _deploy_tool()
    (part,) = await _turn(tmp_path, _deploys("staging"), tool, approver=silent, approval_timeout=0.01)
    assert tool.calls == [] and isinstance(part.state, ToolStateError)
    assert "needs approval, but nobody answered within 0.01 s" in part.state.error
