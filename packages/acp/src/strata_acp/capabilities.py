"""What `strata acp` tells the editor it offers (`initialize`): OpenCode's capabilities, Strata's name."""

from __future__ import annotations

from acp import PROTOCOL_VERSION
from acp.schema import (
    AgentCapabilities,
    AuthMethodAgent,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    PromptCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)

AGENT_NAME = "Strata"


def initialize_response(version: str) -> InitializeResponse:
    return InitializeResponse(
        protocol_version=PROTOCOL_VERSION,
        agent_capabilities=AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(embedded_context=True, image=True),
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            session_capabilities=SessionCapabilities(
                close=SessionCloseCapabilities(),
                fork=SessionForkCapabilities(),
                list=SessionListCapabilities(),
                resume=SessionResumeCapabilities(),
            ),
        ),
        auth_methods=[
            AuthMethodAgent(
                id="strata-login", name="Provider keys", description="Set your provider's API key (strata models)"
            )
        ],
        agent_info=Implementation(name=AGENT_NAME, version=version),
    )
