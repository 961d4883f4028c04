"""The model being called: what the core knows of it, and the interface every model implements.

No wire code lives here. A `LanguageModel` is anything that turns a `ModelRequest` into a stream of
`StreamEvent`s; the wires in strata-providers and the scripted test models implement it.

Contract for implementations:
- `stream()` returns an async context manager; leaving it (normally, on error or on cancel) releases
  everything the stream holds, the HTTP response included.
- Expected failures never raise out of the iterator: they arrive as one final `StreamFailed` event carrying
  a `ModelError`. Only cancellation propagates.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Literal, Protocol, TypeAlias

from attrs import field, frozen

from strata_core.errors import StrataError
from strata_core.llm.cost import ModelCost
from strata_core.llm.events import StreamEvent
from strata_core.llm.json_object import JSONObject
from strata_core.llm.request import ModelRequest


@frozen
class ModelLimits:
    context: int = 0
    """Total context window in tokens; 0 means unknown (overflow is then never detected)."""
    output: int = 0
    """Maximum output tokens; 0 means unknown."""
    input: int | None = None
    """A separate input limit, for providers that state one."""


MediaInToolResults: TypeAlias = Literal["all", "images", "none"]


@frozen
class ModelCapabilities:
    tool_call: bool = True
    reasoning: bool = False
    attachment: bool = False
    """Accepts images and files in user messages."""
    temperature: bool = True
    """Whether a temperature may be sent (OpenCode sends none for config models unless declared)."""
    media_in_tool_results: MediaInToolResults = "none"
    interleaved: str | None = None
    """The assistant-message field its reasoning is sent back in (models.dev's `interleaved.field`), if any."""


@frozen
class ModelInfo:
    """A model as the core sees it: enough to choose prompts, shape history and detect overflow."""

    provider_id: str
    id: str
    api_id: str = ""
    """The provider's own model id (OpenCode's `model.api.id`); defaults to `id`."""
    name: str = ""
    npm: str = "@ai-sdk/openai-compatible"
    """OpenCode's SDK package name; decides the wire and a few per-provider rules."""
    limits: ModelLimits = field(factory=ModelLimits)
    capabilities: ModelCapabilities = field(factory=ModelCapabilities)
    options: JSONObject = field(factory=dict)
    headers: Mapping[str, str] = field(factory=dict)
    cost: ModelCost | None = None
    """Prices per million tokens (models.dev's `cost`); None when unknown, and steps then cost 0."""
    variants: Mapping[str, JSONObject] = field(factory=dict)
    """Named option sets (`--variant high`), in the order OpenCode offers them; the first serves small calls."""
    family: str = ""
    release_date: str = ""

    @property
    def api_model_id(self) -> str:
        return self.api_id or self.id

    @property
    def ref(self) -> str:
        """`provider/model`, as written in config and on the command line."""
        return f"{self.provider_id}/{self.id}"


class LanguageModel(Protocol):
    """One model, ready to be called."""

    @property
    def info(self) -> ModelInfo: ...

    def stream(self, request: ModelRequest) -> AbstractAsyncContextManager[AsyncIterator[StreamEvent]]:
        """Open a streaming call. Iterate the yielded iterator for events; exiting closes the call."""
        ...


class ModelResolver(Protocol):
    """Finds models by `provider/model` reference (implemented by strata-providers' catalogue)."""

    def resolve(self, ref: str) -> LanguageModel:
        """The model for `provider/model`; raises `ModelNotFoundError` with a helpful message otherwise."""
        ...

    def default_model(self) -> LanguageModel:
        """The configured `model`, or a clear `ModelNotFoundError` saying how to configure one."""
        ...

    def small_model(self, provider_id: str) -> LanguageModel | None:
        """The model for small calls (titles): `small_model` config, else a provider default, else None."""
        ...


class ModelNotFoundError(StrataError):
    """No such model, or no model configured; the message says how to configure one."""
