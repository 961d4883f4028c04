"""The OpenAI chat-completions wire: OpenAI, OpenRouter, Ollama, vLLM, LM Studio and every compatible server.

`chat_request_body` shapes the request exactly as OpenCode (through `@ai-sdk/openai-compatible`) does;
`ChatStreamDecoder` assembles the streamed chunks into Strata's events; `OpenAIChatModel` joins the two
over HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
from attrs import field, frozen

from strata_core.llm import ModelInfo, ModelRequest, StreamEvent
from strata_providers.caching import is_anthropic_family
from strata_providers.chat_body import close_body, opening_fields, provider_options
from strata_providers.chat_messages import chat_messages, chat_tools
from strata_providers.openai_chat_stream import ChatStreamDecoder
from strata_providers.openrouter_chat import openrouter_request_body
from strata_providers.params import OPENROUTER_NPM
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint, WireRequest, open_stream, request_headers

CHAT_PATH = "chat/completions"


@frozen
class OpenAIChatModel:
    """A `LanguageModel` speaking chat completions to `endpoint`."""

    info: ModelInfo
    endpoint: Endpoint
    client: Callable[[], httpx.AsyncClient] = field(repr=False)
    """The runtime's shared client, looked up at call time (the runtime opens it after the catalogue)."""
    retry: RetryPolicy = field(factory=RetryPolicy)

    def stream(self, request: ModelRequest) -> AbstractAsyncContextManager[AsyncIterator[StreamEvent]]:
        return open_stream(
            self.client(), self.wire_request(request), ChatStreamDecoder, self.retry, self.endpoint.deadlines
        )

    def wire_request(self, request: ModelRequest) -> WireRequest:
        auth = {"authorization": f"Bearer {self.endpoint.api_key}"} if self.endpoint.api_key else {}
        return WireRequest(
            url=self.endpoint.url(CHAT_PATH),
            headers=request_headers(auth, self.endpoint, self.info, request),
            body=chat_request_body(self.info, request),
            provider_id=self.info.provider_id,
            base_url=self.endpoint.base_url,
        )


def chat_request_body(info: ModelInfo, request: ModelRequest) -> dict[str, Any]:
    """The JSON body for one call, field order as OpenCode sends it (OpenRouter's models: as its SDK does)."""
    if info.npm == OPENROUTER_NPM:
        return openrouter_request_body(info, request, chat_tools(request))
    body = opening_fields(info, request)
    body.update(provider_options(request))
    interleaved = info.capabilities.interleaved
    body["messages"] = chat_messages(request, cache=is_anthropic_family(info), interleaved=interleaved)
    close_body(body, request, chat_tools(request))
    body["stream_options"] = {"include_usage": True}
    return body
