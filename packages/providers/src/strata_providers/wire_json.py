"""Request bodies encoded once per history message: a step's body is joined from fragments, not re-encoded.

A step's request carries the whole history, and the loop hands each step the same model-message objects as
the step before (plus the new answer), so converting every message to its wire form and JSON-encoding the
whole body again made each step cost more than the last. Here each message's wire entries and their JSON
text are kept for as long as the message object lives (the run that converted it): `converted` returns
them for an object seen before, and `encode_body` joins a `FragmentList`'s texts where `json.dumps` would
have walked its entries. The bytes are the same as `json.dumps(body)` with the wire's settings: the JSON of
a list is its items' JSON joined by `,` between brackets, and each fragment is one item's JSON.

Entries are keyed by the message object itself (its identity, checked through a weak reference), so a
changed message, which is a new object, is converted afresh, and an entry goes when its message does.
Cached entries are shared between steps: nothing may change them after `converted` returns them.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

Entries = TypeVar("Entries")

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""JavaScript's `JSON.stringify` spacing, with text as it is: what every wire sends."""


def encode_json(value: Any) -> str:
    """One value's JSON text, exactly as it appears inside a request body."""
    return _encode(value)


class FragmentList(list[Any]):
    """A body's list whose items' JSON texts are known already (`fragments`, one per item, in order).

    Compares and reads as the plain list of its items (tests and hooks see the same body as before);
    `encode_body` writes it from `fragments` instead of encoding the items again.
    """

    __slots__ = ("fragments",)

    def __init__(self, items: list[Any], fragments: list[str]) -> None:
        super().__init__(items)
        self.fragments = fragments


def encode_body(body: Mapping[str, Any]) -> bytes:
    """The request body's bytes: `json.dumps(body)` with the wires' settings, `FragmentList`s joined."""
    fields = []
    for key, value in body.items():
        text = "[" + ",".join(value.fragments) + "]" if isinstance(value, FragmentList) else _encode(value)
        fields.append(_encode(key) + ":" + text)
    return ("{" + ",".join(fields) + "}").encode()


class _Slot:
    """What one message object converted to, per conversion (wire and options)."""

    __slots__ = ("ref", "variants")

    def __init__(self, ref: weakref.ref[Any]) -> None:
        self.ref = ref
        self.variants: dict[Hashable, Any] = {}


_slots: dict[int, _Slot] = {}


def converted(message: object, variant: Hashable, convert: Callable[[], Entries]) -> Entries:
    """`convert()`'s result for this message object and `variant`, made the first time they are asked for.

    `variant` names the conversion (the wire, and any option its result depends on). An object that takes no
    weak reference is converted every time.
    """
    key = id(message)
    slot = _slots.get(key)
    if slot is None or slot.ref() is not message:
        try:
            ref = weakref.ref(message, lambda _, key=key: _forget(key))  # type: ignore[misc]
        except TypeError:
            return convert()
        slot = _slots[key] = _Slot(ref)
    variants = slot.variants
    if variant in variants:
        result: Entries = variants[variant]
        return result
    result = variants[variant] = convert()
    return result


def _forget(key: int) -> None:
    slot = _slots.get(key)
    if slot is not None and slot.ref() is None:
        _slots.pop(key, None)
