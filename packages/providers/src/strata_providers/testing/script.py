"""The script of model turns, now in strata-core (`strata_core.testing.script`); re-exported for old imports."""

from strata_core.testing import (
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
)

__all__ = [
    "DEFAULT_TITLE_MARKERS",
    "DONE",
    "TITLE_TEXT",
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedToolCall",
    "Turn",
    "TurnUsage",
    "check_consumed",
    "is_title_text",
    "parse_script",
]
