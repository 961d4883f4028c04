"""Usage as one line of text: tokens in, out and cached, and what they cost (end of `strata run`, the
interactive toolbar, `strata session show`)."""

from __future__ import annotations

from strata_core.session import UsageTotals


def usage_line(usage: UsageTotals) -> str:
    """`tokens 12,345 in · 678 out · 9,000 cache read · 120 cache write · $0.0123`; reasoning counts as out."""
    parts = [f"tokens {usage.input:,} in", f"{usage.output + usage.reasoning:,} out"]
    parts.append(f"{usage.cache_read:,} cache read")
    parts.append(f"{usage.cache_write:,} cache write")
    return " · ".join(parts) + f" · {dollars(usage.cost)}"


def dollars(cost: float) -> str:
    """USD with enough digits that a cheap step is not shown as $0.00."""
    if cost == 0:
        return "$0.00"
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"
