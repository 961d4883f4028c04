"""Scripted models for tests: in-process (`ScriptedModel`) and over real HTTP (`ScriptedServer`).

The script format, `ScriptExhaustedError` and the model double itself live in strata-core
(`strata_core.testing`), for embedders of the core alone. Here `ScriptedModel` and `ScriptedResolver` are that
double played through the real wire decoders and retries (`WireScriptedModel`, `WireScriptedResolver`, the
core classes' subclasses), and `ScriptedServer` plays the same scripts over loopback HTTP. Use `ScriptedModel`
to test code that takes a `LanguageModel` (with `ScriptedResolver`, a whole runtime: `open_runtime(...,
models=ScriptedResolver(model))`); use `ScriptedServer` to test everything down to the bytes on the wire, with
a provider whose `baseURL` is `server.base_url`. A script that runs out fails the test: `ScriptExhaustedError`.
Pytest fixtures: `pytest_plugins = ["strata_providers.testing.pytest_plugin"]` (opt-in).
"""

from strata_core.testing import (
    DEFAULT_TITLE_MARKERS,
    ScriptedToolCall,
    ScriptError,
    ScriptExhaustedError,
    Turn,
    TurnUsage,
    parse_script,
)
from strata_providers.testing.resolver import WireScriptedResolver
from strata_providers.testing.scripted_model import WireScriptedModel
from strata_providers.testing.scripted_server import SCRIPT_EXHAUSTED_CODE, RecordedRequest, ScriptedServer

ScriptedModel = WireScriptedModel
ScriptedResolver = WireScriptedResolver

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
    "WireScriptedModel",
    "WireScriptedResolver",
    "parse_script",
]
