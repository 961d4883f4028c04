"""strata-core's `ScriptedResolver` making wire doubles: a script given for a ref becomes a `WireScriptedModel`.

`strata_providers.testing` exports it as `ScriptedResolver`, so a test written against strata-providers keeps
the wire-faithful models it always had; see `strata_core.testing.resolver` for how refs are answered.
"""

from __future__ import annotations

from typing import ClassVar

from strata_core.testing import ModelOrScript, Script
from strata_core.testing import ScriptedModel as CoreScriptedModel
from strata_core.testing import ScriptedResolver as CoreScriptedResolver
from strata_providers.testing.scripted_model import WireScriptedModel

__all__ = ["ModelOrScript", "Script", "WireScriptedResolver"]


class WireScriptedResolver(CoreScriptedResolver):
    """The core's resolver; a script becomes a `WireScriptedModel` (decoded by the real wire, retried)."""

    model_class: ClassVar[type[CoreScriptedModel]] = WireScriptedModel
