"""Strata's model providers: the chat-completions and Anthropic Messages wires, the model catalogue,
retries, and request parameters. The scripted test kit lives in `strata_providers.testing`."""

import logging

from strata_providers.anthropic_messages import AnthropicMessagesModel, messages_request_body
from strata_providers.catalog import SMALL_MODEL_FAMILIES, ProviderCatalog
from strata_providers.container import ProvidersContainer
from strata_providers.errors import error_for_status, error_from_payload, is_context_overflow, retry_after_seconds
from strata_providers.local_servers import DEFAULT_LOCAL_SERVERS, LocalServer
from strata_providers.models_dev import ModelsDev, ModelsDevError, ProviderEntry
from strata_providers.openai_chat import OpenAIChatModel, chat_request_body
from strata_providers.params import (
    ProviderParameters,
    RequestParameters,
    default_temperature,
    default_top_p,
    max_output_tokens,
    provider_options,
    request_parameters,
)
from strata_providers.provider_spec import ProviderSpec
from strata_providers.retry import NO_RETRIES, RetryPolicy
from strata_providers.runtime import ProviderRuntime, RuntimeClosedError, open_runtime
from strata_providers.sse import Endpoint

# Silent until the application configures logging, as for strata_core (see strata_core.logging).
logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "DEFAULT_LOCAL_SERVERS",
    "NO_RETRIES",
    "SMALL_MODEL_FAMILIES",
    "AnthropicMessagesModel",
    "Endpoint",
    "LocalServer",
    "ModelsDev",
    "ModelsDevError",
    "OpenAIChatModel",
    "ProviderCatalog",
    "ProviderEntry",
    "ProviderParameters",
    "ProviderRuntime",
    "ProviderSpec",
    "ProvidersContainer",
    "RequestParameters",
    "RetryPolicy",
    "RuntimeClosedError",
    "chat_request_body",
    "default_temperature",
    "default_top_p",
    "error_for_status",
    "error_from_payload",
    "is_context_overflow",
    "max_output_tokens",
    "messages_request_body",
    "open_runtime",
    "provider_options",
    "request_parameters",
    "retry_after_seconds",
]
