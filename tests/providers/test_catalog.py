"""The catalogue: models.dev's providers, OpenCode's provider config, model refs, keys, defaults, small models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from strata_core.config.errors import ConfigError
from strata_core.config.structure import structure_config
from strata_core.llm import ModelNotFoundError
from strata_providers import AnthropicMessagesModel, ModelsDev, OpenAIChatModel, ProviderCatalog
from strata_providers.models_dev import BUNDLED_INDEX, bundled_data

KEYS = {"OPENAI_API_KEY": "sk-openai", "ANTHROPIC_API_KEY": "sk-ant"}
BUNDLED = ModelsDev(bundled_data(), BUNDLED_INDEX)
"""The bundled data, parsed once for the module and kept nowhere (no cache dir: tests write only in tmp_path)."""
ALL_KEYS = {name: "k" for entry in BUNDLED.index().values() for name in entry.env}


def no_client() -> httpx.AsyncClient:
    raise AssertionError("resolving a model must not need the HTTP client")


def catalog(config: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> ProviderCatalog:
    """A catalogue over the bundled models.dev data, probing no local server."""
    env = KEYS if env is None else env
    return ProviderCatalog(structure_config(config or {}), env, no_client, models_dev=BUNDLED, servers=())


def test_built_in_providers_resolve_to_their_wire_with_key_and_base_url() -> None:
    claude = catalog().resolve("anthropic/claude-sonnet-4-5")
    assert isinstance(claude, AnthropicMessagesModel)
    assert claude.endpoint.base_url == "https://api.anthropic.com/v1" and claude.endpoint.api_key == "sk-ant"
    assert claude.info.limits.context == 200_000 and claude.info.capabilities.media_in_tool_results == "all"
    gpt = catalog().resolve("openai/gpt-4o")
    assert isinstance(gpt, OpenAIChatModel)
    assert gpt.endpoint.url("chat/completions") == "https://api.openai.com/v1/chat/completions"
    assert gpt.info.capabilities.media_in_tool_results == "none"


@pytest.mark.parametrize(
    ("provider", "base_url"),
    [
        ("google", "https://generativelanguage.googleapis.com/v1beta/openai"),
        ("openrouter", "https://openrouter.ai/api/v1"),
        ("deepseek", "https://api.deepseek.com"),
        ("groq", "https://api.groq.com/openai/v1"),
        ("mistral", "https://api.mistral.ai/v1"),
        ("togetherai", "https://api.together.xyz/v1"),
        ("xai", "https://api.x.ai/v1"),
        ("moonshotai", "https://api.moonshot.ai/v1"),
    ],
)
def test_catalogue_providers_have_their_endpoint(provider: str, base_url: str) -> None:
    cat = catalog(env=ALL_KEYS)
    spec = cat.providers[provider]
    assert spec.base_url == base_url and spec.models
    first = next(iter(spec.models))
    assert isinstance(cat.resolve(f"{provider}/{first}"), OpenAIChatModel)


def test_the_ref_is_split_at_the_first_slash() -> None:
    model = catalog(env={"OPENROUTER_API_KEY": "k"}).resolve("openrouter/anthropic/claude-sonnet-4.5")
    assert model.info.provider_id == "openrouter" and model.info.id == "anthropic/claude-sonnet-4.5"


def test_the_catalogue_holds_models_devs_providers_and_models() -> None:
    cat = catalog(env={})
    assert len(cat.providers) >= 100 and sum(1 for _ in cat.models(include_unusable=True)) >= 4000


def test_local_servers_need_no_key_and_take_any_model_id() -> None:
    cat = ProviderCatalog(structure_config({}), {}, no_client, models_dev=BUNDLED)  # default local servers, unprobed
    model = cat.resolve("ollama/llama3.2:3b")
    assert isinstance(model, OpenAIChatModel) and model.endpoint.api_key is None
    assert model.info.id == "llama3.2:3b" and model.info.limits.context == 0
    assert not model.info.capabilities.temperature


def test_a_missing_key_says_which_variable_to_set_and_how_to_configure_it() -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        catalog(env={}).resolve("anthropic/claude-sonnet-4-5")
    message = str(caught.value)
    assert "ANTHROPIC_API_KEY" in message and "provider.anthropic.options.apiKey" in message
    assert '"apiKey": "{env:MY_ANTHROPIC_KEY}"' in message


def test_alternative_key_variables_are_accepted() -> None:
    model = catalog(env={"GEMINI_API_KEY": "g"}).resolve("google/gemini-2.5-flash")
    assert model.endpoint.api_key == "g"  # type: ignore[attr-defined]


def test_an_unknown_model_is_named_with_suggestions_and_a_config_snippet() -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        catalog().resolve("anthropic/claude-sonet-4-5")
    message = str(caught.value)
    assert 'Unknown model "claude-sonet-4-5" for provider "anthropic"' in message
    assert "Did you mean: claude-sonnet-4-5" in message
    assert '"claude-sonet-4-5": {' in message and '"tool_call": true' in message


def test_an_unknown_provider_suggests_close_names_and_a_local_server_snippet() -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        ProviderCatalog(structure_config({}), {}, no_client, models_dev=BUNDLED).resolve("olama/llama3")
    message = str(caught.value)
    assert 'Unknown provider "olama"' in message and "Did you mean: ollama" in message
    assert '"npm": "@ai-sdk/openai-compatible"' in message and '"baseURL"' in message
    assert '"model": "olama/llama3"' in message


@pytest.mark.parametrize("ref", ["claude-sonnet-4-5", "anthropic/", "/gpt-4o", ""])
def test_a_ref_without_provider_and_model_is_explained(ref: str) -> None:
    with pytest.raises(ModelNotFoundError, match="write it as provider/model"):
        catalog().resolve(ref)


MOCK_CONFIG = {
    "provider": {
        "mock": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Mock",
            "options": {"baseURL": "http://127.0.0.1:9999/v1", "apiKey": "x", "headers": {"x-team": "a"}},
            "models": {
                "gpt-4o-mock": {"name": "gpt-4o-mock", "tool_call": True},
                "big": {
                    "id": "vendor/big-model-v2",
                    "limit": {"context": 64000, "output": 8000},
                    "temperature": True,
                    "reasoning": True,
                    "modalities": {"input": ["text", "image"]},
                    "options": {"reasoningEffort": "high"},
                    "headers": {"x-model": "big"},
                },
            },
        }
    },
    "model": "mock/gpt-4o-mock",
}


def test_a_config_provider_is_read_as_opencode_writes_it() -> None:
    cat = catalog(MOCK_CONFIG, env={})
    model = cat.resolve("mock/big")
    assert isinstance(model, OpenAIChatModel)
    assert model.endpoint.base_url == "http://127.0.0.1:9999/v1" and model.endpoint.api_key == "x"
    assert model.endpoint.headers == {"x-team": "a"}
    info = model.info
    assert (info.api_model_id, info.limits.context, info.limits.output) == ("vendor/big-model-v2", 64000, 8000)
    caps = info.capabilities
    assert caps.temperature and caps.reasoning and caps.attachment and caps.tool_call
    assert info.options == {"reasoningEffort": "high"} and info.headers == {"x-model": "big"}


def test_a_config_model_sends_no_temperature_unless_it_declares_one() -> None:
    info = catalog(MOCK_CONFIG, env={}).resolve("mock/gpt-4o-mock").info
    assert not info.capabilities.temperature and info.capabilities.tool_call
    assert info.limits.context == 0 and info.npm == "@ai-sdk/openai-compatible"


def test_the_anthropic_package_selects_the_messages_wire() -> None:
    config = {"provider": {"proxy": {"npm": "@ai-sdk/anthropic", "options": {"baseURL": "http://127.0.0.1:1/v1"},
                                     "models": {"claude-x": {}}}}}  # fmt: skip
    model = catalog(config, env={}).resolve("proxy/claude-x")
    assert isinstance(model, AnthropicMessagesModel)
    assert model.info.capabilities.media_in_tool_results == "all"


def test_config_overrides_a_built_in_provider_and_model_keeping_the_rest() -> None:
    config = {"provider": {"anthropic": {
        "options": {"baseURL": "https://gateway.example/v1", "apiKey": "from-config"},
        "models": {"claude-sonnet-4-5": {"limit": {"output": 16000}}, "claude-next": {"name": "Next"}},
    }}}  # fmt: skip
    cat = catalog(config)
    model = cat.resolve("anthropic/claude-sonnet-4-5")
    assert model.endpoint.base_url == "https://gateway.example/v1" and model.endpoint.api_key == "from-config"  # type: ignore[attr-defined]
    assert model.info.limits.output == 16000 and model.info.limits.context == 200_000
    assert model.info.capabilities.reasoning and model.info.cost is not None  # kept from models.dev's model
    assert isinstance(cat.resolve("anthropic/claude-next"), AnthropicMessagesModel)


def test_provider_aliases_reach_the_same_provider() -> None:
    model = catalog(env={"MOONSHOT_API_KEY": "k"}).resolve("moonshot/kimi-k2-thinking")
    assert model.info.provider_id == "moonshotai"


def test_whitelist_and_blacklist_filter_a_providers_models() -> None:
    only = catalog({"provider": {"anthropic": {"whitelist": ["claude-sonnet-4-5"]}}}).provider("anthropic")
    assert only is not None and list(only.models) == ["claude-sonnet-4-5"]
    without = catalog({"provider": {"anthropic": {"blacklist": ["claude-sonnet-4-5"]}}}).provider("anthropic")
    assert without is not None and "claude-sonnet-4-5" not in without.models and "claude-opus-4-5" in without.models


def test_deprecated_models_are_left_out(tmp_path: Path) -> None:
    raw = {"p": {"id": "p", "name": "P", "npm": "@ai-sdk/openai-compatible", "env": ["P_KEY"], "api": "http://p/v1",
                 "models": {"old": {"limit": {"context": 1, "output": 1}, "status": "deprecated"},
                            "new": {"limit": {"context": 1, "output": 1}}}}}  # fmt: skip
    (tmp_path / "api.json").write_text(json.dumps(raw))
    source = ModelsDev(tmp_path / "api.json")
    spec = ProviderCatalog(structure_config({}), {}, no_client, models_dev=source, servers=()).provider("p")
    assert spec is not None and list(spec.models) == ["new"]


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"provider": {"mock": {"options": {"baseURL": 5}}}}, "provider.mock.options.baseURL: expected a URL, got 5"),
        ({"provider": {"mock": {"models": {"m": {"limit": {"context": "big"}}}}}},
         'provider.mock.models.m.limit.context: expected a number of tokens, got "big"'),
        ({"provider": {"mock": {"models": {"m": {"tool_call": "yes"}}}}},
         'provider.mock.models.m.tool_call: expected true or false, got "yes"'),
        ({"provider": {"mock": []}}, "provider.mock: expected an object, got []"),
        ({"provider": "nope"}, 'provider: expected an object of providers, got "nope"'),
    ],
)  # fmt: skip
def test_a_malformed_provider_config_names_the_field(config: dict[str, Any], field: str) -> None:
    # The catalogue only ever sees typed blocks: the config loader refuses a malformed `provider`.
    with pytest.raises(ConfigError) as caught:
        catalog(config)
    assert field in str(caught.value)


def test_key_variables_name_every_variable_a_key_may_come_from() -> None:
    config = {"provider": {"mine": {"env": ["MINE_TOKEN"], "options": {"apiKey": "s3cret", "baseURL": "http://x"}}}}
    env = {"MY_KEY_COPY": "s3cret", "UNRELATED": "other"}
    names = catalog({**config, "disabled_providers": ["openai"]}, env).key_variables()
    assert {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MINE_TOKEN", "MY_KEY_COPY"} <= names
    assert "UNRELATED" not in names


def test_a_custom_provider_without_a_base_url_says_where_to_put_one() -> None:
    with pytest.raises(ModelNotFoundError, match=r"set provider\.mine\.options\.baseURL"):
        catalog({"provider": {"mine": {"models": {"m": {}}}}}).resolve("mine/m")


def test_disabled_and_enabled_providers_filter_the_catalogue() -> None:
    assert "openai" not in catalog({"disabled_providers": ["openai"]}).providers
    assert set(catalog({"enabled_providers": ["openai", "anthropic"]}).providers) == {"openai", "anthropic"}


def test_the_default_model_is_the_configured_one() -> None:
    assert catalog(MOCK_CONFIG, env={}).default_model().info.ref == "mock/gpt-4o-mock"


def test_without_a_configured_model_the_first_provider_with_a_key_supplies_it() -> None:
    # OpenCode's order: ids naming a later entry of its priority list first, then `latest`, then by id, descending.
    assert catalog(env={"OPENAI_API_KEY": "k"}).default_model().info.ref.startswith("openai/gpt-5")
    assert catalog(env={"ANTHROPIC_API_KEY": "k"}).default_model().info.id.startswith("claude-sonnet-4")
    config = {"provider": MOCK_CONFIG["provider"]}
    assert catalog(config).default_model().info.ref == "mock/gpt-4o-mock"  # configured providers first


def test_with_no_model_and_no_key_the_error_says_how_to_configure_one() -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        catalog(env={}).default_model()
    message = str(caught.value)
    assert '"model": "provider/model"' in message and "ANTHROPIC_API_KEY" in message
    assert '"npm": "@ai-sdk/openai-compatible"' in message


def test_small_model_config_wins() -> None:
    cat = catalog({"small_model": "openai/gpt-4o-mini"})
    assert cat.small_model("anthropic").info.ref == "openai/gpt-4o-mini"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("provider", "env", "expected"),
    [
        # The newest model of the first family OpenCode prefers (gemini-flash, gpt-nano, claude-haiku); on a
        # tie of release dates, the greater id.
        ("anthropic", KEYS, "anthropic/claude-haiku-4-5-20251001"),
        ("openai", KEYS, "openai/gpt-5.4-nano"),
        ("google", {"GEMINI_API_KEY": "k"}, "google/gemini-3.5-flash"),
        ("openrouter", {"OPENROUTER_API_KEY": "k"}, "openrouter/google/gemini-3.5-flash"),
    ],
)
def test_the_small_model_is_found_by_opencodes_family_list(provider: str, env: dict[str, str], expected: str) -> None:
    assert catalog(env=env).small_model(provider).info.ref == expected  # type: ignore[union-attr]


def test_a_provider_without_a_small_model_has_none() -> None:
    assert catalog().small_model("deepseek") is None
    assert catalog().small_model("no-such-provider") is None
    assert catalog(env={}).small_model("anthropic") is None  # no key: no usable small model


def test_model_listing_holds_only_usable_providers_unless_asked_for_all() -> None:
    listed = {info.provider_id for info in catalog(MOCK_CONFIG).models()}
    assert listed == {"anthropic", "openai", "mock"}  # keys set for two; the config describes the third
    everything = {info.provider_id for info in catalog(MOCK_CONFIG).models(include_unusable=True)}
    assert {"anthropic", "openai", "mock", "openrouter", "groq"} <= everything
