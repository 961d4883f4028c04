"""Request bodies encoded once per history message: a step's body is joined from kept JSON, not re-encoded.

A step's request carries the whole history, and the loop hands each step the same model-message objects as
the step before (plus the new answer), so converting every message to its wire form and JSON-encoding the
whole body again made each step cost more than the last. Two things are kept here instead:

- `converted`: each message object's wire entries and their JSON, for as long as the object lives (the run
  that converted it). A changed message is a new object, so it is converted afresh.
- `carried`: what a wire built from a run of messages (their entries, and their JSON joined), carried from
  one request to the next that starts with the same messages, so a step only adds its new messages to it.

`encode_body` then writes a `FragmentList` from its JSON pieces where `json.dumps` would have walked its
entries. The bytes are those of `json.dumps(body)` with the wires' settings: a list's JSON is its items'
JSON joined by `,` between brackets, and a piece is the JSON of one item or of several already joined so.
What is kept is shared between steps: nothing may change an entry once it is returned from here.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Generic, TypeVar

Kept = TypeVar("Kept")
Item = TypeVar("Item")

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""JavaScript's `JSON.stringify` spacing, with text as it is: what every wire sends."""


def encode_json(value: Any) -> bytes:
    """One value's JSON, exactly as it appears inside a request body (UTF-8)."""
    return _encode(value).encode()


class FragmentList(list[Any]):
    """A body's list whose JSON is known already: `fragments`, the items' JSON in order, each piece one
    item's or several items' joined by `,` (no empty piece).

    Compares and reads as the plain list of its items (tests and hooks see the same body as before);
    `encode_body` writes it from `fragments` instead of encoding the items again.
    """

    __slots__ = ("fragments",)

    def __init__(self, items: list[Any], fragments: list[bytes]) -> None:
        super().__init__(items)
        self.fragments = fragments


def encode_body(body: Mapping[str, Any]) -> bytes:
    """The request body's bytes: `json.dumps(body)` with the wires' settings, `FragmentList`s joined."""
    pieces = [b"{"]
    for key, value in body.items():
        pieces += (encode_json(key), b":")
        if isinstance(value, FragmentList):
            pieces.append(b"[")
            for fragment in value.fragments:
                pieces += (fragment, b",")
            if value.fragments:
                pieces.pop()
            pieces.append(b"]")
        else:
            pieces.append(encode_json(value))
        pieces.append(b",")
    if body:
        pieces.pop()
    pieces.append(b"}")
    return b"".join(pieces)


class _Slot:
    """What one message object converted to, per conversion (wire and options)."""

    __slots__ = ("ref", "variants")

    def __init__(self, ref: weakref.ref[Any]) -> None:
        self.ref = ref
        self.variants: dict[Hashable, Any] = {}


_slots: dict[int, _Slot] = {}


def converted(message: object, variant: Hashable, convert: Callable[[], Kept]) -> Kept:
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
        result: Kept = variants[variant]
        return result
    result = variants[variant] = convert()
    return result


def _forget(key: int) -> None:
    slot = _slots.get(key)
    if slot is not None and slot.ref() is None:
        _slots.pop(key, None)


class _Carried(Generic[Kept]):
    """A wire's result for the messages it last saw starting with one message object."""

    __slots__ = ("rest", "state")

    def __init__(self) -> None:
        self.rest: tuple[Any, ...] = ()
        """The messages after the first that `state` holds (not the first: that would keep it alive)."""
        self.state: Kept | None = None


def carried(
    messages: Sequence[Item],
    variant: Hashable,
    start: Callable[[], Kept],
    extend: Callable[[Kept, Sequence[Item]], Kept],
) -> Kept:
    """`extend(start(), messages)`, reusing the last result for the same `variant` whose messages began
    these, so only the messages added since are converted.

    Kept on the first message (and gone with it); a request whose messages differ from the last one's
    (equal copies count as the same) starts over. `extend` returns a new state and leaves its argument
    unchanged, since an earlier body may still hold it.
    """
    if not messages:
        return start()
    record: _Carried[Kept] = converted(messages[0], ("carried", variant), _Carried)
    state, seen = record.state, len(record.rest) + 1
    if state is None or seen > len(messages) or tuple(messages[1:seen]) != record.rest:  # identity first, in C
        state = extend(start(), messages)
    elif seen < len(messages):
        state = extend(state, messages[seen:])
    record.state, record.rest = state, tuple(messages[1:])
    return state
