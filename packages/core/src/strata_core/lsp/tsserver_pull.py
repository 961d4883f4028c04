"""A TypeScript file's diagnostics asked of tsserver itself, through typescript-language-server.

typescript-language-server offers no LSP pull, and its pushes are a poor answer to "what does this file say
now": they carry no document version, and it sends one only when a kind of diagnostics (syntactic, semantic,
suggestions) changed. After an edit that changes none of them no push comes at all, so the edit would wait out
the whole wait (5 s); a push still owed for an earlier state can answer a later edit; and the first push for a
new file, which may already hold its errors, is the one that must be skipped. tsserver answers
`syntacticDiagnosticsSync`, `semanticDiagnosticsSync` and `suggestionDiagnosticsSync` in order with the edits
it was sent (once the project is loaded, if it is loading), and the server forwards any tsserver request
through its `typescript.tsserverRequest` command. The client asks for the changed file and then for every
other open one, since a change can break the files that import it. The answers are converted as the server
converts what it pushes (its `toDiagnostic`): tsserver's 1-based line and offset to LSP's 0-based position,
the category to a severity, `typescript` as the source.
"""

from __future__ import annotations

from typing import Any

from strata_core.lsp.values import ERROR, Diagnostic

TSSERVER_REQUEST = "typescript.tsserverRequest"
KINDS = ("syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync")
"""In the order the server keeps a file's kinds (and pushes them joined)."""
_SEVERITIES = {"error": ERROR, "warning": 2, "suggestion": 4}


def request_params(kind: str, uri: str) -> dict[str, Any]:
    """`workspace/executeCommand`'s params asking tsserver for one kind of the open document's diagnostics."""
    return {"command": TSSERVER_REQUEST, "arguments": [kind, {"file": uri}]}


def diagnostics_of(reply: Any) -> list[Diagnostic] | None:
    """The diagnostics in tsserver's answer, or None when it is not a successful one of the expected shape."""
    if not isinstance(reply, dict) or reply.get("success") is not True or not isinstance(reply.get("body"), list):
        return None
    try:
        return [_diagnostic(item) for item in reply["body"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _diagnostic(item: dict[str, Any]) -> Diagnostic:
    start, end, code = item["start"], item["end"], item.get("code")
    return Diagnostic(
        line=max(int(start["line"]) - 1, 0),
        character=max(int(start["offset"]) - 1, 0),
        end_line=max(int(end["line"]) - 1, 0),
        end_character=max(int(end["offset"]) - 1, 0),
        message=str(item["text"]),
        severity=_SEVERITIES.get(str(item.get("category")), ERROR),
        source=item.get("source") or "typescript",
        code=code if isinstance(code, str | int) else None,
    )
