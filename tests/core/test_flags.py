"""Environment switches: `STRATA_X` or `OPENCODE_X` set to 1 or true, read the same way by every service."""

from __future__ import annotations

import pytest

from strata_core.config.flags import env_flag
from strata_core.config.schema import CompactionConfig
from strata_core.engine.compaction import compaction_settings


@pytest.mark.parametrize("value", ["1", "true", "TRUE", " True "])
@pytest.mark.parametrize("prefix", ["STRATA", "OPENCODE"])
def test_one_or_true_in_any_case_under_either_prefix_turns_a_flag_on(prefix: str, value: str) -> None:
    assert env_flag({f"{prefix}_DISABLE_PRUNE": value}, "DISABLE_PRUNE")


@pytest.mark.parametrize("value", ["", "0", "false", "yes", "on"])
def test_anything_else_leaves_a_flag_off(value: str) -> None:
    assert not env_flag({"STRATA_DISABLE_PRUNE": value, "OTHER": "1"}, "DISABLE_PRUNE")


def test_compaction_reads_its_switches_like_the_config_does() -> None:
    env = {"OPENCODE_DISABLE_PRUNE": " TRUE ", "STRATA_DISABLE_AUTOCOMPACT": "1"}
    settings = compaction_settings(CompactionConfig(prune=True), env)
    assert (settings.auto, settings.prune) == (False, False)
