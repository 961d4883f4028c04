"""Permissions: rules and their evaluation, the ask/reply flow, and the rules a subagent's session inherits.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.permission.approval import Refuser, approve_all
    from strata_core.permission.bus_approver import BusApprover
    from strata_core.permission.rules import NoResponderError, Rule, Ruleset, disabled, to_config

__all__ = [
    "BusApprover",
    "NoResponderError",
    "Refuser",
    "Rule",
    "Ruleset",
    "approve_all",
    "disabled",
    "to_config",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "BusApprover": "strata_core.permission.bus_approver",
        "NoResponderError": "strata_core.permission.rules",
        "Refuser": "strata_core.permission.approval",
        "Rule": "strata_core.permission.rules",
        "Ruleset": "strata_core.permission.rules",
        "approve_all": "strata_core.permission.approval",
        "disabled": "strata_core.permission.rules",
        "to_config": "strata_core.permission.rules",
    },
)
