"""Identifiers that sort by creation time, in OpenCode's format.

`{prefix}_{12 hex digits of (ms * 4096 + counter)}{14 random base62}`: comparing two ids of the same
prefix as strings compares their creation order, which the loop relies on (`last_user.id < last_assistant.id`).
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Literal

Prefix = Literal["ses", "msg", "prt", "per", "que", "tool", "job"]

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_lock = threading.Lock()
_last_value = 0


def _random_base62(length: int) -> str:
    return "".join(secrets.choice(_BASE62) for _ in range(length))


def ascending(prefix: Prefix) -> str:
    """A new id that sorts after every id made before it in this process."""
    global _last_value
    with _lock:
        # ms * 4096 leaves room for 4096 ids a millisecond; past that (or if the clock steps back) we keep
        # counting up from the last value, so order holds whatever the clock does.
        value = max(int(time.time() * 1000) * 4096, _last_value + 1)
        _last_value = value
    return f"{prefix}_{value:012x}{_random_base62(14)}"
