"""models.dev's data: the bundled copy and its index, a refreshed copy, and files that are not models.dev's."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from strata_providers import ModelsDev, ModelsDevError
from strata_providers.models_dev import BUNDLED_INDEX, bundled_data, index_document, read_data, store_refreshed

ONE_PROVIDER = {"acme": {"id": "acme", "name": "Acme", "npm": "@ai-sdk/openai-compatible", "env": ["ACME_KEY"],
                         "api": "https://acme.example/v1",
                         "models": {"a-1": {"id": "a-1", "name": "A 1", "limit": {"context": 1000, "output": 100},
                                            "cost": {"input": 1, "output": 2}}}}}  # fmt: skip


def test_the_shipped_index_describes_the_installed_models_dev_data() -> None:
    # After upgrading models-dev, regenerate it: python -m strata_providers.models_dev
    source = bundled_data()
    assert json.loads(BUNDLED_INDEX.read_text()) == index_document(read_data(source), source)


def test_the_bundled_data_is_models_devs_whole_catalogue() -> None:
    index = ModelsDev(bundled_data(), BUNDLED_INDEX).index()
    assert len(index) >= 100 and {"anthropic", "openai", "openrouter", "deepseek"} <= set(index)
    assert (
        index["anthropic"].env == ("ANTHROPIC_API_KEY",) and index["openrouter"].api == "https://openrouter.ai/api/v1"
    )


def test_the_index_answers_without_parsing_the_data() -> None:
    source = ModelsDev(bundled_data(), BUNDLED_INDEX)
    assert "anthropic" in source.index()
    assert source._raw is None  # the ~2 MB file stays unread until a provider's models are needed
    assert source.provider("no-such-provider") is None and source._raw is None


def test_a_refreshed_copy_replaces_the_bundled_one(tmp_path: Path) -> None:
    store_refreshed(ONE_PROVIDER, tmp_path)
    source = ModelsDev.default(tmp_path)
    assert list(source.index()) == ["acme"]
    provider = source.provider("acme")
    assert provider is not None and "a-1" in provider["models"]
    assert ModelsDev.default(tmp_path / "elsewhere").data == bundled_data()


def test_a_stale_index_is_rebuilt_from_the_data(tmp_path: Path) -> None:
    store_refreshed(ONE_PROVIDER, tmp_path)
    edited = {**ONE_PROVIDER, "other": {**ONE_PROVIDER["acme"], "id": "other", "name": "Other"}}
    (tmp_path / "models.json").write_text(json.dumps(edited))  # changed by hand: the index no longer matches
    assert set(ModelsDev.default(tmp_path).index()) == {"acme", "other"}


def test_gzipped_and_plain_files_both_read(tmp_path: Path) -> None:
    (tmp_path / "api.json.gz").write_bytes(gzip.compress(json.dumps(ONE_PROVIDER).encode()))
    assert read_data(tmp_path / "api.json.gz") == ONE_PROVIDER


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("not json", "not a readable models.dev JSON file"),
        ("[]", "expected models.dev's api.json, an object of providers by id"),
        ('{"acme": {"id": "acme"}}', 'provider "acme" has no "models" object'),
    ],
)
def test_a_file_that_is_not_models_devs_is_refused_by_name(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "api.json"
    path.write_text(content)
    with pytest.raises(ModelsDevError) as caught:
        read_data(path)
    assert str(path) in str(caught.value) and expected in str(caught.value)


def test_after_one_full_read_each_provider_is_read_from_its_own_file(tmp_path: Path) -> None:
    first = ModelsDev.default(tmp_path)
    anthropic = first.provider("anthropic")
    assert anthropic is not None and first._raw is not None  # the first run parses the whole file
    later = ModelsDev.default(tmp_path)
    assert later.provider("anthropic") == anthropic and later._raw is None  # later ones read one provider
    assert later.provider("no-such-provider") is None


def test_a_refresh_drops_the_split_copies_of_the_data_it_replaces(tmp_path: Path) -> None:
    assert ModelsDev.default(tmp_path).provider("anthropic") is not None
    store_refreshed(ONE_PROVIDER, tmp_path)
    assert not (tmp_path / "models-dev").exists()
    assert ModelsDev.default(tmp_path).provider("anthropic") is None
