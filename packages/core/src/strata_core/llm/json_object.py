"""`JSONObject`: a decoded JSON object as the model interface passes it around (options, tool arguments).

A leaf of its own so the model, its request and its events can all name it without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

JSONObject: TypeAlias = Mapping[str, Any]
