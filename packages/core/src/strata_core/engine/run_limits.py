"""How far one turn may go (config `limits`): steps per turn, bytes streamed per step, failed calls in a row.

A model that streams without end, calls tools with broken arguments forever, or never stops calling tools
would otherwise hold a run until someone kills it; each limit ends the step or the turn with a stored error
that says which limit was reached and the config key that sets it.
"""

from __future__ import annotations

from attrs import define, frozen

from strata_core import llm
from strata_core.config.schema import LimitsConfig
from strata_core.message import UNKNOWN_ERROR, MessageError

DEFAULT_TURN_STEPS = 200
DEFAULT_STEP_OUTPUT_BYTES = 2 * 1024 * 1024
"""Far above one step's real output (32,000 tokens is ~130 KB); an endless stream reaches it in seconds."""
DEFAULT_TOOL_ERRORS = 5
OUTPUT_LENGTH_ERROR = "MessageOutputLengthError"
"""OpenCode's name for an answer cut at its output limit."""


@frozen
class RunLimits:
    """How far one turn may go (config `limits`)."""

    turn_steps: int = DEFAULT_TURN_STEPS
    step_output_bytes: int = DEFAULT_STEP_OUTPUT_BYTES
    tool_errors: int = DEFAULT_TOOL_ERRORS
    """Failed tool calls in a row (unknown tool, unreadable or invalid arguments) that end the turn."""

    @classmethod
    def from_config(cls, config: LimitsConfig) -> RunLimits:
        return cls(
            turn_steps=config.turn_steps or DEFAULT_TURN_STEPS,
            step_output_bytes=config.step_output_bytes or DEFAULT_STEP_OUTPUT_BYTES,
            tool_errors=config.tool_errors or DEFAULT_TOOL_ERRORS,
        )


@define
class OutputMeter:
    """Counts the bytes one step streamed (text, reasoning, tool arguments) against its limit."""

    limit: int
    used: int = 0

    def over(self, event: llm.StreamEvent) -> bool:
        """Adds `event`'s output; whether the step has now streamed more than its limit."""
        if isinstance(event, llm.TextDelta | llm.ReasoningDelta):
            self.used += len(event.text.encode())
        elif isinstance(event, llm.ToolInputDelta):
            self.used += len(event.delta.encode())
        return self.used > self.limit

    def error(self) -> MessageError:
        return MessageError(
            OUTPUT_LENGTH_ERROR,
            f"the model streamed more than {self.limit:,} bytes in one step, so the step was ended "
            f"(limits.step_output_bytes in strata.json raises the limit)",
        )


def turn_steps_error(steps: int) -> MessageError:
    return MessageError(
        UNKNOWN_ERROR,
        f"the turn reached its limit of {steps} steps and was stopped (limits.turn_steps in strata.json raises it)",
    )
