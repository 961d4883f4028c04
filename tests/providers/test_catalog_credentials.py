"""The catalogue takes a stored `api` credential's key last: after the environment and the config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from strata_core.config import CredentialStore, StrataPaths
from strata_core.config.structure import structure_config
from strata_providers import ModelsDev, ProviderCatalog
from strata_providers.models_dev import BUNDLED_INDEX, bundled_data

API = {"type": "api", "key": "sk-stored-0001"}


def store_in(tmp_path: Path) -> CredentialStore:
    return CredentialStore.from_paths(StrataPaths.from_env({"HOME": str(tmp_path)}))


def no_client() -> httpx.AsyncClient:
    raise AssertionError("no call is made")


def catalog(tmp_path: Path, env: dict[str, str], config: dict[str, Any] | None = None) -> ProviderCatalog:
    models = ModelsDev(bundled_data(), BUNDLED_INDEX)
    blocks = structure_config(config or {})
    return ProviderCatalog(blocks, {"HOME": str(tmp_path), **env}, no_client, models_dev=models, servers=())


def test_the_catalogue_takes_a_stored_key_last(tmp_path: Path) -> None:
    store_in(tmp_path).set("groq", API)
    stored = catalog(tmp_path, {})
    assert stored.api_key(stored.providers["groq"]) == "sk-stored-0001"
    assert "groq" in [spec.id for spec in stored.connected_providers()]
    assert any(info.provider_id == "groq" for info in stored.models())
    from_env = catalog(tmp_path, {"GROQ_API_KEY": "sk-env"})
    assert from_env.api_key(from_env.providers["groq"]) == "sk-env"
    from_config = catalog(tmp_path, {}, {"provider": {"groq": {"options": {"apiKey": "sk-config"}}}})
    assert from_config.api_key(from_config.providers["groq"]) == "sk-config"


def test_without_a_stored_key_the_provider_stays_unusable(tmp_path: Path) -> None:
    store_in(tmp_path).set("groq", {"type": "wellknown", "key": "K", "token": "t"})
    cat = catalog(tmp_path, {})
    assert cat.unusable_reason(cat.providers["groq"]) == "no key: set GROQ_API_KEY"
