"""Truncation of tool output (reference §14.3): limits, head and tail, the saved file, the hint, cleanup."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from tool_fakes import rules

from strata_core.clock import FrozenClock, SystemClock
from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigInfo
from strata_core.ids import Ids
from strata_core.tool.truncation import MAX_BYTES, MAX_LINES, Truncation, cleanup_tool_output, cut

pytestmark = pytest.mark.anyio


def test_defaults_are_2000_lines_and_50_kib() -> None:
    assert (MAX_LINES, MAX_BYTES) == (2000, 51200)
    paths = StrataPaths.from_env({"HOME": "/h"})
    assert Truncation.from_paths(paths).directory == paths.tool_output / "global"


def test_saved_outputs_are_kept_per_project() -> None:
    paths = StrataPaths.from_env({"HOME": "/h"})
    clock = SystemClock()
    configured = Truncation.configured(paths, "abc123", ConfigInfo(), clock, Ids(clock))
    assert configured.directory == paths.tool_output / "abc123" and configured.root == paths.tool_output
    with pytest.raises(ValueError, match="one path component"):
        paths.project_tool_output("../other")


def test_configured_limits_replace_the_defaults_and_unset_ones_keep_them() -> None:
    # Unusable values (0, "big") never get here: loading the config refuses them (tests/core/test_config_blocks.py).
    paths = StrataPaths.from_env({"HOME": "/h"})
    clock = SystemClock()
    limits = ConfigInfo(data={"tool_output": {"max_lines": 10, "max_bytes": 2048}})
    configured = Truncation.configured(paths, "p", limits, clock, Ids(clock))
    assert (configured.max_lines, configured.max_bytes) == (10, 2048)
    unset = Truncation.configured(paths, "p", ConfigInfo(), clock, Ids(clock))
    assert (unset.max_lines, unset.max_bytes) == (MAX_LINES, MAX_BYTES)


async def test_output_within_limits_is_unchanged_and_nothing_is_saved(truncation: Truncation) -> None:
    text = "\n".join(f"line {i}" for i in range(2000))
    kept = await truncation.output(text)
    assert kept.content == text and not kept.truncated and kept.output_path is None
    assert not truncation.directory.exists()


async def test_head_keeps_the_first_lines_and_counts_the_rest(truncation: Truncation) -> None:
    text = "\n".join(f"line {i}" for i in range(2090))
    kept = await truncation.output(text)
    assert kept.truncated
    preview, rest = kept.content.split("\n\n...90 lines truncated...\n\n")
    assert preview.splitlines() == [f"line {i}" for i in range(2000)]
    assert rest.startswith("The tool call succeeded but the output was truncated. Full output saved to: ")


async def test_tail_keeps_the_last_lines_and_puts_the_note_first(truncation: Truncation) -> None:
    text = "\n".join(f"line {i}" for i in range(100))
    kept = await truncation.output(text, direction="tail", max_lines=10)
    assert kept.content.startswith("...90 lines truncated...\n\n")
    assert kept.content.endswith("\n\n" + "\n".join(f"line {i}" for i in range(90, 100)))


async def test_single_huge_line_reports_bytes_truncated(truncation: Truncation) -> None:
    text = '{"data": "' + "x" * 60_000 + '"}'
    kept = await truncation.output(text)
    assert kept.content.startswith("\n\n...60012 bytes truncated...")


async def test_full_output_is_saved_under_a_tool_prefixed_name(truncation: Truncation) -> None:
    text = "x\n" * 3000
    kept = await truncation.output(text)
    assert kept.output_path is not None
    assert kept.output_path.parent == truncation.directory
    assert kept.output_path.name.startswith("tool_")
    assert kept.output_path.read_text() == text
    assert f"Full output saved to: {kept.output_path}\n" in kept.content


async def test_hint_suggests_delegating_when_the_agent_may_use_task(truncation: Truncation) -> None:
    text = "x\n" * 3000
    delegating = await truncation.output(text, agent_ruleset=rules({"*": "allow"}))
    assert "Use the Task tool to have explore agent process this file" in delegating.content
    no_task = await truncation.output(text, agent_ruleset=rules({"*": "allow", "task": "deny"}))
    assert "Use Grep to search the full content or Read with offset/limit" in no_task.content
    unknown = await truncation.output(text)
    assert "Use Grep to search the full content" in unknown.content


def test_cut_counts_a_newline_as_one_byte() -> None:
    result = cut("aa\nbb\ncc", max_lines=10, max_bytes=5)
    assert result.kept == ("aa", "bb") and result.unit == "bytes" and result.removed == 3


def test_cleanup_removes_saved_outputs_older_than_seven_days_on_its_clock(tmp_path: Path) -> None:
    root = tmp_path / "tool-output"
    (root / "project-b").mkdir(parents=True)
    flat_old, old, fresh, other = root / "tool_flat", root / "project-b/tool_old", root / "tool_new", root / "x.txt"
    for path in (flat_old, old, fresh, other):
        path.write_text("x")
    now = 1_900_000_000  # the clock's "now", far from the machine's: only the clock decides what is old
    for path, days in ((flat_old, 8), (old, 8), (fresh, 6), (other, 8)):
        os.utime(path, (now - days * 24 * 3600, now - days * 24 * 3600))
    # One project's runtime sweeps every project's dir and what the flat layout of old left at the top.
    swept = Truncation(root / "project-a", clock=FrozenClock(now * 1000), root=root).cleanup()
    assert swept == 2 and not flat_old.exists() and not old.exists() and fresh.exists() and other.exists()
    assert cleanup_tool_output(tmp_path / "missing", now=time.time()) == 0
