"""The model double, for tests of code built on strata-core: a scripted `LanguageModel` and a resolver over it.

    from strata_core.testing import ScriptedModel, ScriptedResolver

    model = ScriptedModel([{"tool_calls": [{"name": "read", "arguments": {"filePath": "a.txt"}}]},
                           {"text": "The file says hello."}])
    async with open_runtime(project, env, models=ScriptedResolver(model), store="memory") as runtime:
        ...
    model.assert_script_consumed()
    assert model.main_requests[1].messages[-1].role == "tool"

`ScriptedModel` plays each `Turn` (text, reasoning, tool calls, usage, or a failure) as the stream events a
model reports and records every `ModelRequest`; `ScriptedResolver` answers the runtime's model lookups with
scripted models. A call past the script's end raises `ScriptExhaustedError`. Nothing here needs more than
strata-core; strata-providers' `strata_providers.testing` plays the same scripts through the real wire decoders
(and over loopback HTTP with `ScriptedServer`) for tests about the wire.
"""

from strata_core.testing.resolver import ModelOrScript, Script, ScriptedResolver
from strata_core.testing.script import (
    DEFAULT_TITLE_MARKERS,
    DONE,
    TITLE_TEXT,
    ScriptedToolCall,
    ScriptError,
    ScriptExhaustedError,
    Turn,
    TurnUsage,
    check_consumed,
    is_title_text,
    parse_script,
    pieces,
)
from strata_core.testing.scripted_model import SCRIPTED_INFO, ScriptedModel, ScriptedModelOptions, play

__all__ = [
    "DEFAULT_TITLE_MARKERS",
    "DONE",
    "SCRIPTED_INFO",
    "TITLE_TEXT",
    "ModelOrScript",
    "Script",
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedModel",
    "ScriptedModelOptions",
    "ScriptedResolver",
    "ScriptedToolCall",
    "Turn",
    "TurnUsage",
    "check_consumed",
    "is_title_text",
    "parse_script",
    "pieces",
    "play",
]
