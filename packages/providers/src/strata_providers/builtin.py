"""The providers Strata knows without configuration, and a handful of well-known models for each.

Limits are the providers' published context windows and output ceilings; `strata.json`/`opencode.json` can
override any of them (or add models) through OpenCode's `provider` config. Every provider here except
Anthropic speaks chat completions, so their models take no media inside tool results (the history
converter moves such media into a user message instead).
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import field, frozen

from strata_core.llm import MediaInToolResults, ModelCapabilities, ModelInfo, ModelLimits
from strata_providers.deadlines import Deadlines

ANTHROPIC_NPM = "@ai-sdk/anthropic"
COMPATIBLE_NPM = "@ai-sdk/openai-compatible"
MESSAGES_WIRE_NPMS = frozenset({ANTHROPIC_NPM, "@ai-sdk/google-vertex/anthropic"})
"""SDK packages whose models speak Anthropic Messages; every other package is served by chat completions."""


@frozen
class ProviderSpec:
    """A provider: where it lives, which key it needs, how it speaks, and the models it offers."""

    id: str
    name: str
    npm: str
    base_url: str | None
    env: tuple[str, ...] = ()
    """Environment variables that may hold the API key (first set wins); empty when none is needed."""
    models: Mapping[str, ModelInfo] = field(factory=dict)
    open_models: bool = False
    """A local server: any model id is accepted, since its models are whatever the user loaded."""
    api_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(factory=dict, repr=False)
    deadlines: Deadlines = field(factory=Deadlines)

    @property
    def needs_key(self) -> bool:
        return bool(self.env)


def _models(
    provider: str, npm: str, table: list[tuple[str, int, int, str]], *, temperature: bool = True
) -> dict[str, ModelInfo]:
    """Models from rows of (id, context, output, flags); flags: r=reasoning, a=attachments, t=no temperature."""
    media: MediaInToolResults = "all" if npm == ANTHROPIC_NPM else "none"
    return {
        model_id: ModelInfo(
            provider_id=provider,
            id=model_id,
            name=model_id,
            npm=npm,
            limits=ModelLimits(context=context, output=output),
            capabilities=ModelCapabilities(
                tool_call=True,
                reasoning="r" in flags,
                attachment="a" in flags,
                temperature=temperature and "t" not in flags,
                media_in_tool_results=media,
            ),
        )
        for model_id, context, output, flags in table
    }


def _provider(
    id_: str, name: str, base_url: str, env: tuple[str, ...], table: list[tuple[str, int, int, str]], **kw: str
) -> ProviderSpec:
    npm = kw.get("npm", COMPATIBLE_NPM)
    return ProviderSpec(id_, name, npm, base_url, env, _models(id_, npm, table), open_models=not env)


# The first model of each provider is its default when no `model` is configured.
BUILTIN_PROVIDERS: dict[str, ProviderSpec] = {
    spec.id: spec
    for spec in (
        _provider("anthropic", "Anthropic", "https://api.anthropic.com/v1", ("ANTHROPIC_API_KEY",), [
            ("claude-sonnet-4-5", 200_000, 64_000, "ra"),
            ("claude-opus-4-5", 200_000, 64_000, "ra"),
            ("claude-opus-4-1", 200_000, 32_000, "ra"),
            ("claude-haiku-4-5", 200_000, 64_000, "ra"),
            ("claude-sonnet-4-20250514", 200_000, 64_000, "ra"),
            ("claude-3-5-haiku-latest", 200_000, 8_192, "a"),
        ], npm=ANTHROPIC_NPM),
        _provider("openai", "OpenAI", "https://api.openai.com/v1", ("OPENAI_API_KEY",), [
            ("gpt-5", 400_000, 128_000, "rat"),
            ("gpt-5-mini", 400_000, 128_000, "rat"),
            ("gpt-5-nano", 400_000, 128_000, "rat"),
            ("gpt-4.1", 1_047_576, 32_768, "a"),
            ("gpt-4.1-mini", 1_047_576, 32_768, "a"),
            ("gpt-4o", 128_000, 16_384, "a"),
            ("gpt-4o-mini", 128_000, 16_384, "a"),
            ("o4-mini", 200_000, 100_000, "rat"),
            ("o3", 200_000, 100_000, "rat"),
        ], npm="@ai-sdk/openai"),
        _provider("google", "Google", "https://generativelanguage.googleapis.com/v1beta/openai",
                  ("GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"), [
            ("gemini-2.5-pro", 1_048_576, 65_536, "ra"),
            ("gemini-2.5-flash", 1_048_576, 65_536, "ra"),
            ("gemini-2.5-flash-lite", 1_048_576, 65_536, "ra"),
            ("gemini-3-pro-preview", 1_048_576, 65_536, "ra"),
        ]),
        _provider("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), [
            ("anthropic/claude-sonnet-4.5", 200_000, 64_000, "ra"),
            ("anthropic/claude-haiku-4.5", 200_000, 64_000, "ra"),
            ("openai/gpt-5", 400_000, 128_000, "rat"),
            ("openai/gpt-4o-mini", 128_000, 16_384, "a"),
            ("google/gemini-2.5-pro", 1_048_576, 65_536, "ra"),
            ("google/gemini-2.5-flash", 1_048_576, 65_536, "ra"),
            ("qwen/qwen3-coder", 262_144, 65_536, ""),
        ], npm="@openrouter/ai-sdk-provider"),
        _provider("deepseek", "DeepSeek", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",), [
            ("deepseek-chat", 128_000, 8_192, ""),
            ("deepseek-reasoner", 128_000, 64_000, "r"),
        ]),
        _provider("groq", "Groq", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",), [
            ("openai/gpt-oss-120b", 131_072, 65_536, "r"),
            ("moonshotai/kimi-k2-instruct-0905", 262_144, 16_384, ""),
            ("llama-3.3-70b-versatile", 131_072, 32_768, ""),
            ("qwen/qwen3-32b", 131_072, 40_960, "r"),
        ]),
        _provider("mistral", "Mistral", "https://api.mistral.ai/v1", ("MISTRAL_API_KEY",), [
            ("devstral-medium-latest", 131_072, 16_384, ""),
            ("mistral-large-latest", 131_072, 16_384, ""),
            ("mistral-medium-latest", 131_072, 16_384, "a"),
            ("codestral-latest", 256_000, 4_096, ""),
        ]),
        _provider("together", "Together AI", "https://api.together.xyz/v1",
                  ("TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"), [
            ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", 262_144, 65_536, ""),
            ("moonshotai/Kimi-K2-Instruct-0905", 262_144, 16_384, ""),
            ("deepseek-ai/DeepSeek-V3", 131_072, 16_384, ""),
            ("meta-llama/Llama-3.3-70B-Instruct-Turbo", 131_072, 16_384, ""),
        ]),
        _provider("xai", "xAI", "https://api.x.ai/v1", ("XAI_API_KEY",), [
            ("grok-4", 256_000, 64_000, "ra"),
            ("grok-code-fast-1", 256_000, 10_000, "r"),
            ("grok-3-mini", 131_072, 8_192, "r"),
        ]),
        _provider("moonshot", "Moonshot AI (Kimi)", "https://api.moonshot.ai/v1", ("MOONSHOT_API_KEY",), [
            ("kimi-k2-0905-preview", 262_144, 262_144, ""),
            ("kimi-k2-turbo-preview", 262_144, 262_144, ""),
            ("kimi-k2-thinking", 262_144, 262_144, "r"),
        ]),
        _provider("ollama", "Ollama", "http://localhost:11434/v1", (), [
            ("gpt-oss:20b", 131_072, 32_768, "r"),
            ("qwen3-coder:30b", 262_144, 65_536, ""),
            ("qwen3:8b", 40_960, 8_192, "r"),
            ("llama3.1:8b", 131_072, 8_192, ""),
            ("deepseek-r1:8b", 131_072, 32_768, "r"),
        ]),
        _provider("lmstudio", "LM Studio", "http://localhost:1234/v1", (), [
            ("openai/gpt-oss-20b", 131_072, 32_768, "r"),
            ("qwen/qwen3-coder-30b", 262_144, 65_536, ""),
            ("qwen/qwen3-30b-a3b-2507", 262_144, 16_384, ""),
        ]),
        _provider("vllm", "vLLM", "http://localhost:8000/v1", (), [
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct", 262_144, 65_536, ""),
            ("openai/gpt-oss-120b", 131_072, 32_768, "r"),
        ]),
    )
}  # fmt: skip

PROVIDER_ALIASES = {"togetherai": "together", "moonshotai": "moonshot", "kimi": "moonshot", "gemini": "google"}
"""Other names the same providers go by (models.dev ids, common shorthands)."""
