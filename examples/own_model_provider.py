"""Your own model provider: a `LanguageModel` and a `ModelResolver` written by the application, used for
whole turns through `open_runtime(models=...)`.

The model here echoes the user's last message back word by word; asked to `shout` something, it calls the
application's `upper` tool first and echoes the tool's result; given nothing to echo, it fails the way the
contract says a model fails: a final `StreamFailed` event, never an exception out of the stream.
"""

import json
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from strata_core import PromptRequest, TextInput, llm, open_runtime
from strata_core.message import AssistantMessage
from strata_core.tool import tool

ECHO = llm.ModelInfo("house", "echo", name="Echo", limits=llm.ModelLimits(context=8_000, output=1_000))


class EchoModel:
    """A `strata_core.llm.LanguageModel`: `info`, and `stream(request)` as an async context manager."""

    info = ECHO

    @asynccontextmanager
    async def stream(self, request: llm.ModelRequest) -> AsyncIterator[AsyncIterator[llm.StreamEvent]]:
        # Whatever the stream holds (an HTTP response, for a real wire) is released when this block exits.
        yield self._events(request.messages[-1])

    async def _events(self, last: llm.ModelMessage) -> AsyncIterator[llm.StreamEvent]:
        if isinstance(last, llm.ToolModelMessage):  # the tool answered: echo what it said
            text = " ".join(result.output.text for result in last.content)
        elif isinstance(last, llm.UserModelMessage):
            text = " ".join(part.text for part in last.content if isinstance(part, llm.TextContent)).strip()
            if text.startswith("shout "):
                arguments = {"text": text.removeprefix("shout ")}
                yield llm.ToolCall("call_1", "upper", arguments, raw_input=json.dumps(arguments))
                yield llm.Finish("tool-calls", llm.Usage(input_tokens=len(text.split()), output_tokens=1))
                return
        else:
            text = ""
        if not text:
            yield llm.StreamFailed(llm.BadResponseError("the echo model has nothing to echo"))
            return
        yield llm.TextStart("t1")
        for number, word in enumerate(text.split()):
            yield llm.TextDelta("t1", word if number == 0 else f" {word}")
        yield llm.TextEnd("t1")
        yield llm.Finish("stop", llm.Usage(input_tokens=len(text.split()), output_tokens=len(text.split())))


class HouseModels:
    """A `strata_core.llm.ModelResolver`: which model a `provider/model` reference means."""

    def __init__(self) -> None:
        self.echo = EchoModel()

    def resolve(self, ref: str) -> llm.LanguageModel:
        if ref != ECHO.ref:
            raise llm.ModelNotFoundError(f"unknown model {ref!r}: this application has only {ECHO.ref}")
        return self.echo

    def default_model(self) -> llm.LanguageModel:
        return self.echo

    def small_model(self, provider_id: str) -> llm.LanguageModel | None:
        return None  # no model for titles: a resolver passed in is asked only for the application's own turns


@tool
def upper(text: str) -> str:
    """Write text in capitals.

    Args:
        text: The text to write in capitals.
    """
    return text.upper()


async def main() -> None:
    project = Path(tempfile.mkdtemp())
    env = {"HOME": str(project / "home")}
    async with open_runtime(project, env, models=HouseModels(), store="memory", tools=[upper]) as rt:
        session = await rt.sessions.create()
        for words in ["hello from my own model", "shout it works", " "]:
            answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput(words)]))
            assert isinstance(answer.info, AssistantMessage) and answer.info.model_id == "echo"
            error = answer.info.error
            print(f"{words!r} -> {answer.text!r}" + (f" (failed: {error.message})" if error else ""))


anyio.run(main)
