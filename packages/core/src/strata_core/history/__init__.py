"""Stored history, shaped for the model: what is still visible after compaction, pruning, and conversion to requests."""

from __future__ import annotations

from strata_core.history.compacted import Latest, extend_compacted, filter_compacted, latest
from strata_core.history.model_messages import is_media, media_in_tool_results, to_model_messages
from strata_core.history.prune import prune_candidates

__all__ = [
    "Latest",
    "extend_compacted",
    "filter_compacted",
    "is_media",
    "latest",
    "media_in_tool_results",
    "prune_candidates",
    "to_model_messages",
]
