"""Session export and import in OpenCode's `opencode export` shape: `{info, messages: [{info, parts}]}`.

Writing is the converter's JSON (camelCase keys, absent optionals omitted). Reading is tolerant, because
files come from other versions of OpenCode and Strata: unknown keys are ignored, missing required fields
get a neutral default (and a warning when that default is a guess), and a part or message that still does
not fit is skipped with a warning. A file that is not an export at all is a clear error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from attrs import frozen
from cattrs import ClassValidationError

from strata_core import json_text
from strata_core import message as m
from strata_core.errors import StrataError
from strata_core.ids import Ids
from strata_core.serialization import converter
from strata_core.session_info import SessionInfo, SessionModel, SessionTime, derived_slug


class ExportFormatError(StrataError, ValueError):
    """The data is not a session export; the message says what was expected."""


MAX_TIME_MS = 253_402_300_799_999
"""9999-12-31T23:59:59.999Z: the last instant a date can name. A time past it (or below 0) is no time at all,
and would not fit the stores' 64-bit columns either."""


@frozen
class ReadExport:
    """A session read from an export, already assigned to this project, with what had to be guessed or skipped."""

    info: SessionInfo
    messages: tuple[m.MessageWithParts, ...]
    warnings: tuple[str, ...]


def export_data(info: SessionInfo, messages: Sequence[m.MessageWithParts]) -> dict[str, Any]:
    """The export document of a session: what `opencode export` prints, less its `todos`."""
    info = with_usage(info, messages)
    return {"info": session_data(info), "messages": [_exported_message(message) for message in messages]}


def session_data(info: SessionInfo) -> dict[str, Any]:
    """A session record in OpenCode's JSON shape (an export's `info`, the server's `Session`)."""
    # OpenCode's importer requires a `slug`; the one derived from the id lets `opencode import` read it.
    return {"slug": info.slug, **converter.unstructure(info)}


def message_data(message: m.MessageWithParts) -> dict[str, Any]:
    """A message with its parts in OpenCode's JSON shape: `{info, parts}`."""
    return {"info": converter.unstructure(message.info), "parts": [part_data(p) for p in message.parts]}


def part_data(part: m.Part) -> dict[str, Any]:
    data: dict[str, Any] = converter.unstructure(part)
    return data


def _exported_message(message: m.MessageWithParts) -> dict[str, Any]:
    data = message_data(message)
    return {
        "info": _without_false(data["info"], "summary"),
        "parts": [_without_false(part, "synthetic", "ignored") for part in data["parts"]],
    }


def _without_false(record: dict[str, Any], *flags: str) -> dict[str, Any]:
    """`record` without the flags that are `false`: OpenCode writes them only when true, and an export
    read back by it (or by Strata, whose default is false) then comes out as it went in."""
    return {key: value for key, value in record.items() if not (key in flags and value is False)}


def with_usage(info: SessionInfo, messages: Sequence[m.MessageWithParts]) -> SessionInfo:
    """The session with the fields OpenCode keeps on it and Strata does not store, filled from its messages
    where they are missing: agent and model of the last user message, cost and tokens summed over the
    assistant messages (as OpenCode's own `session_usage` migration derives them)."""
    users = [h.info for h in messages if isinstance(h.info, m.UserMessage)]
    replies = [h.info for h in messages if isinstance(h.info, m.AssistantMessage)]
    last = users[-1] if users else None
    model = info.model
    if model is None and last is not None:
        model = SessionModel(id=last.model.model_id, provider_id=last.model.provider_id, variant=last.model.variant)
    tokens = info.tokens or m.Tokens(
        input=sum(r.tokens.input for r in replies),
        output=sum(r.tokens.output for r in replies),
        reasoning=sum(r.tokens.reasoning for r in replies),
        cache_read=sum(r.tokens.cache_read for r in replies),
        cache_write=sum(r.tokens.cache_write for r in replies),
    )
    return attrs.evolve(
        info,
        agent=info.agent or (last.agent if last is not None else None),
        model=model,
        cost=info.cost if info.cost is not None else sum(r.cost for r in replies),
        tokens=tokens,
    )


def parse_export_text(text: str, where: str = "the export") -> Any:
    """JSON of an export file. Text before the first `{` is skipped: some OpenCode versions printed a status
    line (`Exporting session: ses_…`) into redirected exports (anomalyco/opencode#12130)."""
    try:
        return json_text.loads(text)
    except json_text.JsonNestingError as error:
        raise ExportFormatError(f"{where} is not a session export: {error}") from None
    except json.JSONDecodeError as error:
        start = text.find("{")
        if start > 0:
            try:
                return json_text.loads(text[start:])
            except (json.JSONDecodeError, json_text.JsonNestingError):
                pass
        raise ExportFormatError(f"{where} is not valid JSON (line {error.lineno}, column {error.colno})") from error


def read_export(data: Any, *, project_id: str, directory: str, now: int, ids: Ids) -> ReadExport:
    """Read an export document into records for this project and directory; the session keeps its ids."""
    if not isinstance(data, Mapping) or not isinstance(data.get("info"), Mapping):
        raise ExportFormatError(
            "not a session export: expected a JSON object with `info` (the session) and `messages`, "
            "as written by `opencode export` or `strata session export`"
        )
    raw_messages = data.get("messages", [])
    if not isinstance(raw_messages, list):
        raise ExportFormatError(f"`messages` must be a list, got {type(raw_messages).__name__}")
    warnings: list[str] = []
    info = _session_info(data["info"], project_id, directory, now, ids, warnings)
    messages = _messages(raw_messages, info, ids, warnings)
    return ReadExport(info, tuple(messages), tuple(warnings))


# ---------------------------------------------------------------------------------------------------------
# The session record


def _session_info(
    raw: Mapping[str, Any], project_id: str, directory: str, now: int, ids: Ids, warnings: list[str]
) -> SessionInfo:
    session_id = _text(raw.get("id"))
    if not session_id:
        session_id = ids.new("ses")
        warnings.append(f"the session has no id; imported as {session_id}")
    time: Mapping[str, Any] = _mapping(raw.get("time")) or {}
    _check_times(time, "info.time")
    created = _number(time.get("created"), now)
    return SessionInfo(
        id=session_id,
        project_id=project_id,
        directory=directory,
        title=_text(raw.get("title")) or "Imported session",
        version=_text(raw.get("version")) or "unknown",
        time=SessionTime(
            created=created,
            updated=_number(time.get("updated"), created),
            compacting=_optional_number(time.get("compacting")),
            archived=_optional_number(time.get("archived")),
        ),
        parent_id=_text(raw.get("parentID")) or None,
        permission=_permission(raw.get("permission"), warnings),
        summary=_mapping(raw.get("summary")),
        stored_slug=_text(raw.get("slug")) if _text(raw.get("slug")) not in ("", derived_slug(session_id)) else None,
        path=raw["path"] if isinstance(raw.get("path"), str) else None,
        workspace_id=_text(raw.get("workspaceID")) or None,
        agent=_text(raw.get("agent")) or None,
        model=_session_model(raw.get("model")),
        cost=_optional_number(raw.get("cost")),
        tokens=converter.structure(raw["tokens"], m.Tokens) if isinstance(raw.get("tokens"), Mapping) else None,
        share=_mapping(raw.get("share")),
        metadata=_mapping(raw.get("metadata")),
        revert=_mapping(raw.get("revert")),
    )


def _session_model(raw: Any) -> SessionModel | None:
    if not isinstance(raw, Mapping) or not _text(raw.get("id")) or not _text(raw.get("providerID")):
        return None
    return SessionModel(id=raw["id"], provider_id=raw["providerID"], variant=_text(raw.get("variant")) or None)


def _mapping(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, Mapping) else None


def _permission(raw: Any, warnings: list[str]) -> list[dict[str, str]] | None:
    if raw is None:
        return None
    if isinstance(raw, list) and all(
        isinstance(rule, Mapping) and all(isinstance(v, str) for v in rule.values()) for rule in raw
    ):
        return [dict(rule) for rule in raw]
    warnings.append("the session's permission rules are not a list of {permission, pattern, action}; dropped")
    return None


def _check_times(raw: Any, where: str) -> None:
    """Refuse a `time` object holding a number that is not a time in milliseconds (too large, negative, NaN):
    a wrong time would sort the session or message out of place, and a huge one overflows the database."""
    if not isinstance(raw, Mapping):
        return  # not a time object: the fields it should hold get their defaults
    for key, value in raw.items():
        if isinstance(value, int | float) and not isinstance(value, bool) and not 0 <= value <= MAX_TIME_MS:
            raise ExportFormatError(
                f"invalid time at {where}.{key}: {value!r} is not a time in milliseconds since 1970 "
                f"(0 to {MAX_TIME_MS}, the end of the year 9999)"
            )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _number(value: Any, default: int) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _optional_number(value: Any) -> Any:
    """A JSON number as it was (int or float), or None."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


# ---------------------------------------------------------------------------------------------------------
# Messages and parts


def _messages(raw_messages: list[Any], session: SessionInfo, ids: Ids, warnings: list[str]) -> list[m.MessageWithParts]:
    """Messages of the export; missing fields of older exports are filled from their neighbours."""
    next_model = _next_assistant_models(raw_messages)
    out: list[m.MessageWithParts] = []
    last_user = ""
    for index, entry in enumerate(raw_messages):
        raw = entry.get("info") if isinstance(entry, Mapping) else None
        if not isinstance(raw, Mapping):
            warnings.append(f"messages[{index}] has no `info` object; skipped")
            continue
        _check_times(raw.get("time"), f"messages[{index}].info.time")
        defaults = _message_defaults(raw, session, last_user, next_model[index], ids)
        info = _structure(m.Message, {**raw, "sessionID": session.id}, defaults)
        if info is None:
            warnings.append(
                f"message {raw.get('id', f'messages[{index}]')} ({raw.get('role')!r}) does not fit; skipped"
            )
            continue
        if isinstance(info, m.UserMessage):
            last_user = info.id
        raw_parts = entry.get("parts") if isinstance(entry.get("parts"), list) else []
        out.append(m.MessageWithParts(info, _parts(raw_parts, info, f"messages[{index}].parts", ids, warnings)))
    return out


def _next_assistant_models(raw_messages: list[Any]) -> list[dict[str, str] | None]:
    """For each position, the model of the next assistant reply: the best guess for a user message without one."""
    found: list[dict[str, str] | None] = [None] * len(raw_messages)
    model: dict[str, str] | None = None
    for index in range(len(raw_messages) - 1, -1, -1):
        found[index] = model
        entry = raw_messages[index]
        raw = entry.get("info") if isinstance(entry, Mapping) else None
        if isinstance(raw, Mapping) and raw.get("role") == "assistant" and isinstance(raw.get("modelID"), str):
            model = {"providerID": _text(raw.get("providerID")) or "unknown", "modelID": raw["modelID"]}
    return found


def _message_defaults(
    raw: Mapping[str, Any], session: SessionInfo, last_user: str, next_model: dict[str, str] | None, ids: Ids
) -> dict[str, Any]:
    time = {"created": session.time.created}
    if raw.get("role") == "user":
        model = next_model or {"providerID": "unknown", "modelID": "unknown"}
        return {"id": ids.new("msg"), "time": time, "agent": "build", "model": model}
    agent = _text(raw.get("agent")) or _text(raw.get("mode")) or "build"  # early versions had only `mode`
    return {
        "id": ids.new("msg"),
        "time": time,
        "parentID": last_user,
        "modelID": "unknown",
        "providerID": "unknown",
        "mode": agent,
        "agent": agent,
        "path": {"cwd": session.directory, "root": session.directory},
    }


_PART_DEFAULTS: dict[str, dict[str, Any]] = {
    "text": {"text": ""},
    "reasoning": {"text": ""},
    "file": {"mime": "application/octet-stream", "url": ""},
    "tool": {"tool": "unknown"},
    "step-start": {},
    "step-finish": {"reason": "unknown"},
    "patch": {"hash": "", "files": []},
    "agent": {"name": ""},
    "retry": {"attempt": 0, "error": {"name": "UnknownError"}, "time": {"created": 0}},
    "compaction": {"auto": False},
    "subtask": {"prompt": "", "description": "", "agent": "general"},
}
_STATE_DEFAULTS: dict[str, dict[str, Any]] = {
    "pending": {"input": {}, "raw": ""},
    "running": {"input": {}, "time": {"start": 0}},
    "completed": {"input": {}, "output": "", "title": "", "metadata": {}, "time": {"start": 0, "end": 0}},
    "error": {"input": {}, "error": "", "time": {"start": 0, "end": 0}},
}


def _parts(raw_parts: list[Any], message: m.Message, where: str, ids: Ids, warnings: list[str]) -> list[m.Part]:
    parts: list[m.Part] = []
    for index, raw in enumerate(raw_parts):
        kind = raw.get("type") if isinstance(raw, Mapping) else None
        if kind not in _PART_DEFAULTS:
            warnings.append(f"message {message.id}: a part of type {kind!r} is not something Strata stores; skipped")
            continue
        assert isinstance(raw, Mapping)
        _check_part_times(raw, f"{where}[{index}]")
        fixed = {**raw, "sessionID": message.session_id, "messageID": message.id}
        defaults = {"id": ids.new("prt"), **_PART_DEFAULTS[kind]}
        if kind == "tool":
            fixed["state"] = _tool_state(raw.get("state"))
            defaults["callID"] = _text(raw.get("id")) or "call"
        part = _structure(m.Part, fixed, defaults)
        if part is None:
            warnings.append(f"message {message.id}: part {raw.get('id')!r} ({kind}) does not fit; skipped")
        else:
            parts.append(part)
    return parts


def _check_part_times(raw: Mapping[str, Any], where: str) -> None:
    _check_times(raw.get("time"), f"{where}.time")
    state = raw.get("state")
    if isinstance(state, Mapping):  # a tool call's start and end
        _check_times(state.get("time"), f"{where}.state.time")


def _tool_state(raw: Any) -> Any:
    status = raw.get("status") if isinstance(raw, Mapping) else None
    if status not in _STATE_DEFAULTS:
        return raw  # left for the structure step to refuse, so the part is skipped with a warning
    return _merged(_STATE_DEFAULTS[status], raw)


def _merged(defaults: Mapping[str, Any], raw: Mapping[str, Any]) -> dict[str, Any]:
    """`raw` over `defaults`, one level deep, so a `time` missing its `end` still gets one."""
    merged = {**defaults, **raw}
    for key, default in defaults.items():
        value = raw.get(key)
        if isinstance(default, Mapping) and isinstance(value, Mapping):
            merged[key] = {**default, **value}
    return merged


def _structure(union: Any, raw: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
    """Structure `raw` as one of `union`'s classes, with `defaults` under it; None if it does not fit.

    A malformed optional field (an old `time` shape, odd metadata) costs that field, not the record: the
    fields the converter names as failing are dropped and structuring is tried once more.
    """
    merged = _merged(defaults, raw)
    try:
        return converter.structure(merged, union)
    except ClassValidationError as error:
        droppable = _failed_optional_keys(error)
        if not droppable:
            return None
    except Exception:
        return None
    try:
        return converter.structure({k: v for k, v in merged.items() if k not in droppable}, union)
    except Exception:
        return None


def _failed_optional_keys(error: ClassValidationError) -> set[str]:
    """JSON keys of the fields that failed, if every one of them may be left out; else the empty set."""
    fields = {a.name: a for a in attrs.fields(error.cl)}
    failed, unexplained = error.group_exceptions()
    if unexplained:
        return set()
    keys: set[str] = set()
    for _, note in failed:
        field = fields.get(note.name)
        if field is None or field.default is attrs.NOTHING:
            return set()
        keys.add(field.metadata.get("json", field.name))
    return keys
