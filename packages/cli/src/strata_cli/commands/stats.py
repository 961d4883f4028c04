"""`strata stats [--days N] [--project]`: tokens, cost and sessions over the stored sessions (as `opencode stats`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from strata_cli import options
from strata_cli.output import echo_json, echo_table

if TYPE_CHECKING:
    from strata_core.session import Bucket, Stats, UsageTotals


@click.command(short_help="Show token usage and cost statistics.")
@click.option("--days", type=click.IntRange(min=0), default=None, help="Only the last N days (0: today; default: all).")
@click.option("--project", "this_project", is_flag=True, help="Only this project's sessions (default: every project).")
@options.directory
@options.database
@options.json_output
def stats(days: int | None, this_project: bool, directory: Path | None, as_json: bool) -> None:
    """Sessions, messages, tokens and cost in all, then by model and by day."""
    import anyio

    from strata_cli.app import build_container, start_runtime
    from strata_core.session import usage_stats

    container = build_container(options.resolve_directory(directory))

    async def load() -> Stats:
        async with start_runtime(container, mcp=False) as runtime:  # no turn: no servers, no warm-up snapshot
            project = runtime.project.id if this_project else None
            return await usage_stats(runtime.store, runtime.clock.now_ms(), days=days, project_id=project)

    found = anyio.run(load)
    if as_json:
        echo_json(as_document(found))
        return
    usage = found.usage
    click.echo("OVERVIEW")
    echo_table(["", ""], [("Sessions", f"{found.sessions:,}"), ("Messages", f"{found.messages:,}"),
                          ("Days", str(found.days))])  # fmt: skip
    click.echo("\nCOST & TOKENS")
    echo_table(["", ""], [
        ("Total Cost", _dollars(usage.cost)), ("Avg Cost/Day", _dollars(found.cost_per_day)),
        ("Avg Tokens/Session", f"{round(found.average_tokens):,}"),
        ("Median Tokens/Session", f"{round(found.median_tokens):,}"),
        ("Input", f"{usage.input:,}"), ("Output", f"{usage.output + usage.reasoning:,}"),
        ("Cache Read", f"{usage.cache_read:,}"), ("Cache Write", f"{usage.cache_write:,}"),
    ])  # fmt: skip
    for title, buckets in (("MODEL", found.by_model), ("DAY", found.by_day)):
        click.echo("")
        echo_table([title, "SESSIONS", "MESSAGES", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"],
                   [(name, *_row(bucket)) for name, bucket in buckets.items()])  # fmt: skip


def _row(bucket: Bucket) -> tuple[str, ...]:
    usage = bucket.usage
    return (f"{len(bucket.sessions):,}", f"{bucket.messages:,}", f"{usage.input:,}",
            f"{usage.output + usage.reasoning:,}", f"{usage.cache_read:,}", f"{usage.cache_write:,}",
            _dollars(usage.cost))  # fmt: skip


def _dollars(cost: float) -> str:
    from strata_cli.usage_line import dollars

    return dollars(cost)


def _tokens(usage: UsageTotals) -> dict[str, Any]:
    return {"input": usage.input, "output": usage.output, "reasoning": usage.reasoning,
            "cache": {"read": usage.cache_read, "write": usage.cache_write}}  # fmt: skip


def _bucket(b: Bucket) -> dict[str, Any]:
    return {"sessions": len(b.sessions), "messages": b.messages, "tokens": _tokens(b.usage), "cost": b.usage.cost}


def as_document(found: Stats) -> dict[str, Any]:
    """The statistics as JSON, in the names `opencode stats` computes them under."""
    u = found.usage
    return {
        "totalSessions": found.sessions,
        "totalMessages": found.messages,
        "days": found.days,
        "totalCost": u.cost,
        "costPerDay": found.cost_per_day,
        "totalTokens": _tokens(u),
        "tokensPerSession": found.average_tokens,
        "medianTokensPerSession": found.median_tokens,
        "modelUsage": {name: _bucket(b) for name, b in found.by_model.items()},
        "dayUsage": {name: _bucket(b) for name, b in found.by_day.items()},
    }
