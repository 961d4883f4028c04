"""Scripted models for tests: in-process (`ScriptedModel`) and over real HTTP (`ScriptedServer`).

Both play the same script of turns (see `Turn`) and record every request they receive. Use `ScriptedModel`
to test code that takes a `LanguageModel` (with `ScriptedResolver`, a whole runtime: `open_runtime(...,
models=ScriptedResolver(model))`); use `ScriptedServer` to test everything down to the bytes on the wire, with
a provider whose `baseURL` is `server.base_url`. A script that runs out fails the test: `ScriptExhaustedError`.
Pytest fixtures: `pytest_plugins = ["strata_providers.testing.pytest_plugin"]` (opt-in).
"""

from strata_providers.testing.resolver import ScriptedResolver
from strata_providers.testing.script import (
    DEFAULT_TITLE_MARKERS,
    ScriptedToolCall,
    ScriptError,
    ScriptExhaustedError,
    Turn,
    TurnUsage,
    parse_script,
)
from strata_providers.testing.scripted_model import ScriptedModel
from strata_providers.testing.scripted_server import SCRIPT_EXHAUSTED_CODE, RecordedRequest, ScriptedServer

__all__ = [
    "DEFAULT_TITLE_MARKERS",
    "SCRIPT_EXHAUSTED_CODE",
    "RecordedRequest",
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedModel",
    "ScriptedResolver",
    "ScriptedServer",
    "ScriptedToolCall",
    "Turn",
    "TurnUsage",
    "parse_script",
]
