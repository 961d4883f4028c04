"""strata-core's own model double (`strata_core.testing`): a whole turn on strata-core alone, turns played as
stream events, failures as the `ModelError` a wire would give, and strata-providers' double its subclass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from provider_kit import TITLE_REQUEST, collect, finish_of, of_type, user_request

from strata_core import PromptRequest, TextInput, open_runtime
from strata_core.llm import (
    ContextOverflowError,
    RateLimitedError,
    ReasoningDelta,
    StreamEvent,
    StreamFailed,
    TextDelta,
    ToolCall,
    TransportError,
)
from strata_core.message import ToolPart, ToolStateCompleted
from strata_core.testing import ScriptedModel, ScriptedResolver, ScriptError, ScriptExhaustedError, play
from strata_core.testing import Turn as CoreTurn

pytestmark = pytest.mark.anyio


async def _events(turn: dict[str, object]) -> list[StreamEvent]:
    return [event async for event in play(CoreTurn.from_json(turn))]


async def test_a_whole_turn_with_a_tool_call_runs_on_the_core_double(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\n")
    read = {"tool_calls": [{"name": "read", "arguments": {"filePath": str(tmp_path / "notes.txt")}}]}
    model = ScriptedModel([read, {"text": "The notes say alpha."}])
    env = {"HOME": str(tmp_path / "home")}
    async with open_runtime(tmp_path, env, models=ScriptedResolver(model), store="memory") as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("what do the notes say?")]))
        history = await rt.sessions.messages(session.id)
    assert answer.text == "The notes say alpha."
    (part,) = [p for message in history for p in message.parts if isinstance(p, ToolPart)]
    assert isinstance(part.state, ToolStateCompleted) and "1: alpha" in part.state.output
    assert model.main_requests[1].messages[-1].role == "tool"
    model.assert_script_consumed()


async def test_a_turn_is_its_reasoning_text_and_calls_in_pieces_then_a_finish_with_its_usage() -> None:
    events = await _events(
        {
            "reasoning": "Think.",
            "text": "Hello",
            "chunk_size": 3,
            "tool_calls": [{"name": "read", "arguments": {"filePath": "a"}}, {"name": "bad", "arguments": "{oops"}],
            "usage": {"input": 7, "output": 2, "cache_read": 1},
        }
    )
    assert [e.text for e in of_type(events, ReasoningDelta)] == ["Thi", "nk."]
    assert [e.text for e in of_type(events, TextDelta)] == ["Hel", "lo"]
    good, bad = of_type(events, ToolCall)
    assert (good.call_id, good.tool_name, good.input) == ("call_0_0", "read", {"filePath": "a"})
    assert bad.input is None and bad.parse_error is not None and bad.raw_input == "{oops"
    finish = finish_of(events)
    assert finish.reason == "tool-calls"
    assert (finish.usage.input_tokens, finish.usage.output_tokens, finish.usage.cache_read_tokens) == (7, 2, 1)


@pytest.mark.parametrize(
    ("turn", "kind"),
    [
        ({"status": 429, "retry_after": 2}, RateLimitedError),
        ({"status": 400, "code": "context_length_exceeded"}, ContextOverflowError),
        ({"text": "Hel", "stream_error": {"type": "overloaded_error", "message": "busy"}}, RateLimitedError),
        ({"text": "Hello", "chunk_size": 1, "cut_after": 2}, TransportError),
    ],
)
async def test_a_failing_turn_ends_with_the_error_a_wire_would_give(turn: dict[str, object], kind: type) -> None:
    events = await _events(turn)
    assert isinstance(events[-1], StreamFailed) and isinstance(events[-1].error, kind)
    assert not [e for e in events if type(e).__name__ == "RetryScheduled"]


async def test_a_wire_only_key_says_which_double_plays_it() -> None:
    with pytest.raises(ScriptError, match="strata-providers' ScriptedModel"):
        await _events({"malformed": "{"})


async def test_titles_take_no_turn_and_a_call_past_the_script_fails_loudly() -> None:
    model = ScriptedModel([{"text": "only"}])
    await collect(model, user_request("first"))
    title = await collect(model, TITLE_REQUEST)
    assert "".join(e.text for e in of_type(title, TextDelta)) == "Scripted title"
    with pytest.raises(ScriptExhaustedError, match=r"turn #2 was asked for \(by requests\[2\]\)"):
        await collect(model, user_request("again"))
    with pytest.raises(ScriptExhaustedError):
        model.assert_script_consumed()


def test_strata_providers_testing_is_the_same_double_played_through_the_wires() -> None:
    from strata_providers import testing as wire

    assert issubclass(wire.ScriptedModel, ScriptedModel)
    assert issubclass(wire.ScriptedResolver, ScriptedResolver)
    assert wire.Turn is CoreTurn and wire.ScriptExhaustedError is ScriptExhaustedError
    assert isinstance(wire.ScriptedResolver([{"text": "x"}]).default_model(), wire.ScriptedModel)
    assert type(ScriptedResolver([{"text": "x"}]).default_model()) is ScriptedModel


def test_the_core_double_imports_nothing_from_strata_providers() -> None:
    code = "import sys, strata_core.testing; print(sorted(m for m in sys.modules if m.startswith('strata_provid')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
