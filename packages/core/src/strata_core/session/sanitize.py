"""`--sanitize` for session exports: OpenCode 1.18.33's rule, field for field (`opencode export --sanitize`).

What a transcript says and what files held is replaced by a marker naming the kind of data and the record it
came from (`[redacted:tool-output:prt_…]`); an object (tool input, metadata) becomes `{"redacted": "kind:id"}`.
Empty strings and empty objects are left as they are, so the shape of the session stays readable. Ids, times,
roles, tool names, models, token counts and costs are kept. The rule works on the export document (plain
JSON), so it applies the same to a Strata session and to one read from OpenCode's database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# JavaScript's String.prototype.trim strips these as well as what Python's str.strip does.
_JS_WHITESPACE = "\ufeff"


def sanitized(document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of an export document (`{info, messages}`) with transcript and file data redacted."""
    return {
        **document,
        "info": _session(document["info"]),
        "messages": [
            {**entry, "info": _message(entry["info"]), "parts": [_part(part) for part in entry.get("parts", [])]}
            for entry in document.get("messages", [])
        ],
    }


def _text(kind: str, owner: str, value: Any) -> Any:
    if isinstance(value, str) and value.strip().strip(_JS_WHITESPACE).strip():
        return f"[redacted:{kind}:{owner}]"
    return value


def _object(kind: str, owner: str, value: Any) -> Any:
    if isinstance(value, Mapping) and value:
        return {"redacted": f"{kind}:{owner}"}
    return value


def _with(record: Mapping[str, Any], **changes: Callable[[Any], Any]) -> dict[str, Any]:
    """`record` with each named key, where present, replaced by `change(value)`; absent keys stay absent."""
    out = dict(record)
    for key, change in changes.items():
        if key in out and out[key] is not None:
            out[key] = change(out[key])
    return out


def _diffs(kind: str, diffs: Any) -> Any:
    if not isinstance(diffs, list):
        return diffs
    return [_diff(kind, str(index), diff) for index, diff in enumerate(diffs)]


def _diff(kind: str, index: str, diff: Mapping[str, Any]) -> dict[str, Any]:
    return _with(
        diff,
        file=lambda v: _text(f"{kind}-file", index, v),
        patch=lambda v: _text(f"{kind}-patch", index, v),
    )


def _session(info: Mapping[str, Any]) -> dict[str, Any]:
    owner = str(info.get("id"))
    out = _with(
        info,
        title=lambda v: _text("session-title", owner, v),
        directory=lambda v: _text("session-directory", owner, v),
    )
    if info.get("summary"):
        out["summary"] = _with(info["summary"], diffs=lambda v: _diffs("session-diff", v))
    if info.get("revert"):
        out["revert"] = _with(
            info["revert"],
            snapshot=lambda v: _text("revert-snapshot", owner, v),
            diff=lambda v: _text("revert-diff", owner, v),
        )
    return out


def _message(info: Mapping[str, Any]) -> dict[str, Any]:
    owner = str(info.get("id"))
    if info.get("role") != "user":
        path: Mapping[str, Any] = info["path"] if isinstance(info.get("path"), Mapping) else {}
        return {
            **info,
            "path": {"cwd": _text("cwd", owner, path.get("cwd")), "root": _text("root", owner, path.get("root"))},
        }
    out = _with(info, system=lambda v: _text("system", owner, v))
    if info.get("summary"):
        out["summary"] = _with(
            info["summary"],
            title=lambda v: _text("summary-title", owner, v),
            body=lambda v: _text("summary-body", owner, v),
            diffs=lambda v: _diffs("message-diff", v),
        )
    return out


def _file_text(owner: str, text: Any) -> Any:
    return _with(text, value=lambda v: _text("file-text", owner, v)) if isinstance(text, Mapping) else text


def _file_source(owner: str, source: Any) -> Any:
    if not source:
        return source
    kind = source.get("type")
    text = {"text": lambda v: _file_text(owner, v)}
    if kind == "symbol":
        return _with(
            source,
            path=lambda v: _text("file-path", owner, v),
            name=lambda v: _text("file-symbol", owner, v),
            **text,
        )
    if kind == "resource":
        return _with(
            source,
            clientName=lambda v: _text("file-client", owner, v),
            uri=lambda v: _text("file-uri", owner, v),
            **text,
        )
    return _with(source, path=lambda v: _text("file-path", owner, v), **text)


def _file(part: Mapping[str, Any]) -> dict[str, Any]:
    owner = str(part.get("id"))
    return _with(
        part,
        url=lambda v: _text("file-url", owner, v),
        filename=lambda v: _text("file-name", owner, v),
        source=lambda v: _file_source(owner, v),
    )


def _tool_state(owner: str, state: Mapping[str, Any]) -> dict[str, Any]:
    status = state.get("status")
    # OpenCode keeps an empty input object as it is, and so does `_object`.
    out = _with(state, input=lambda v: _object("tool-input", owner, v))
    if status == "pending":
        return _with(out, raw=lambda v: _text("tool-raw", owner, v))
    out = _with(out, metadata=lambda v: _object("tool-state-metadata", owner, v))
    if status in ("running", "completed"):
        out = _with(out, title=lambda v: _text("tool-title", owner, v))
    if status == "completed":
        out = _with(
            out,
            output=lambda v: _text("tool-output", owner, v),
            attachments=lambda v: [_file(a) for a in v] if isinstance(v, list) else v,
        )
    return out


def _part(part: Mapping[str, Any]) -> dict[str, Any]:
    owner = str(part.get("id"))
    kind = part.get("type")
    if kind in ("text", "reasoning"):
        return _with(
            part,
            text=lambda v: _text(str(kind), owner, v),
            metadata=lambda v: _object(f"{kind}-metadata", owner, v),
        )
    if kind == "file":
        return _file(part)
    if kind == "subtask":
        return _with(
            part,
            prompt=lambda v: _text("subtask-prompt", owner, v),
            description=lambda v: _text("subtask-description", owner, v),
            command=lambda v: _text("subtask-command", owner, v),
        )
    if kind == "tool":
        out = _with(part, metadata=lambda v: _object("tool-metadata", owner, v))
        return _with(out, state=lambda v: _tool_state(owner, v) if isinstance(v, Mapping) else v)
    if kind == "patch":
        return _with(
            part,
            hash=lambda v: _text("patch", owner, v),
            files=lambda v: [_text("patch-file", f"{owner}-{i}", f) for i, f in enumerate(v)],
        )
    if kind in ("snapshot", "step-start", "step-finish"):
        return _with(part, snapshot=lambda v: _text("snapshot", owner, v))
    if kind == "agent":
        return _with(
            part,
            source=lambda v: _with(v, value=lambda s: _text("agent-source", owner, s)) if v else v,
        )
    return dict(part)
