"""One language server process: the initialize handshake, opened documents, and the diagnostics it reports.

Diagnostics arrive two ways and both are kept: pushed (`textDocument/publishDiagnostics`) and pulled
(`textDocument/diagnostic`, for servers that offer it, statically or by registration). After an edit the
tools wait for the file's diagnostics with OpenCode's bounds: at most `DOCUMENT_WAIT` s in all, each pull at
most `PULL_TIMEOUT` s, and a push counts once no newer one came for `PUSH_DEBOUNCE` s. Messages are checked
against LSP's types with `lsprotocol` (a malformed one is dropped); the framing is `jsonrpc.py`. After a change
to a TypeScript file, its diagnostics and every other open file's are asked of tsserver through the server
(`tsserver_pull.py`), since its pushes cannot say when a file is checked; a server that cannot answer that
way is waited on for pushes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

from strata_core.logging import get_logger
from strata_core.lsp import tsserver_pull
from strata_core.lsp.jsonrpc import JsonRpcConnection, LanguageServerGoneError, LanguageServerReplyError
from strata_core.lsp.values import Diagnostic

log = get_logger(__name__)

PUSH_DEBOUNCE = 0.15
DOCUMENT_WAIT = 5.0
PULL_TIMEOUT = 3.0
INITIALIZE_TIMEOUT = 10.0
"""A server that has not answered `initialize` by then is given up for the session (OpenCode waits 45 s, which
the first edit of a project would pay in full for a server that hangs)."""
_INCREMENTAL = 2
SETTLES_LATER = frozenset({"typescript"})
"""Servers whose first push for a newly opened file is not yet its diagnostics (OpenCode waits for the second)."""
ASKS_TSSERVER = frozenset({"typescript"})
"""Servers whose files' diagnostics are asked of tsserver through them (`tsserver_pull`) before any push."""

LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascriptreact", ".json": "json", ".md": "markdown", ".go": "go", ".rs": "rust", ".c": "c",
    ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".rb": "ruby", ".lua": "lua", ".sh": "shellscript",
    ".css": "css", ".html": "html", ".vue": "vue", ".svelte": "svelte", ".yaml": "yaml", ".yml": "yaml",
}  # fmt: skip

_converter = get_converter()


def _diagnostic(item: lsp.Diagnostic) -> Diagnostic:
    code = item.code if isinstance(item.code, str | int) else None
    return Diagnostic(
        line=item.range.start.line,
        character=item.range.start.character,
        end_line=item.range.end.line,
        end_character=item.range.end.character,
        message=item.message,
        severity=int(item.severity) if item.severity is not None else 1,
        source=item.source,
        code=code,
    )


def _diagnostics(raw: Any) -> list[Diagnostic] | None:
    """LSP diagnostics out of a JSON list, or None when it is not one."""
    try:
        return [_diagnostic(item) for item in _converter.structure(raw, list[lsp.Diagnostic])]
    except Exception:  # cattrs raises its own groups for any shape it cannot read
        return None


def _path(uri: object) -> Path | None:
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    from urllib.parse import unquote, urlparse

    return Path(unquote(urlparse(uri).path))


def _end(text: str) -> dict[str, int]:
    lines = text.splitlines() or [""]
    if text.endswith(("\n", "\r")):
        lines.append("")
    return {"line": len(lines) - 1, "character": len(lines[-1])}


class LanguageServerClient:
    """The connection to one server for one root: what the service asks of it."""

    def __init__(self, server_id: str, root: Path) -> None:
        self.server_id = server_id
        self.root = root
        self.connection: JsonRpcConnection | None = None
        self._pushed: dict[Path, list[Diagnostic]] = {}
        self._pulled: dict[Path, list[Diagnostic]] = {}
        self._published: dict[Path, tuple[float, int | None]] = {}
        self._documents: dict[Path, tuple[int, str]] = {}
        self._pull_registrations: dict[str, str | None] = {}
        self._static_pull = False
        self._sync = 1
        self._changed = anyio.Event()
        self._registrations = 0
        self._asks_tsserver = server_id in ASKS_TSSERVER
        self.initialization: Mapping[str, Any] = {}
        self.messages: deque[str] = deque(maxlen=20)
        """The server's latest error and warning log messages (`window/logMessage`)."""

    # --- the server's side -------------------------------------------------------------------------------

    def handlers(self) -> dict[str, Any]:
        """Requests the server may send and how they are answered."""
        return {
            "window/workDoneProgress/create": self._null,
            "workspace/configuration": self._configuration,
            "client/registerCapability": self._register,
            "client/unregisterCapability": self._unregister,
            "workspace/workspaceFolders": self._folders,
            "workspace/diagnostic/refresh": self._null,
        }

    def on_notification(self, method: str, params: Any) -> None:
        if method in ("window/logMessage", "window/showMessage") and isinstance(params, dict):
            if params.get("type") in (1, 2):  # errors and warnings: what explains a crash
                self.messages.append(str(params.get("message", ""))[:500])
            return
        if method != "textDocument/publishDiagnostics" or not isinstance(params, dict):
            return
        path = _path(params.get("uri"))
        items = _diagnostics(params.get("diagnostics"))
        if path is None or items is None:
            return
        version = params.get("version")
        first = path not in self._pushed
        self._pushed[path] = items
        if first and self.server_id in SETTLES_LATER:
            return  # its first push for a file comes before it has checked it: wait for the next
        self._published[path] = (anyio.current_time(), version if isinstance(version, int) else None)
        self._signal()

    async def _null(self, params: Any) -> None:
        return None

    async def _configuration(self, params: Any) -> list[Any]:
        items = params.get("items", []) if isinstance(params, dict) else []
        return [_section(self.initialization, item.get("section")) for item in items if isinstance(item, dict)]

    async def _register(self, params: Any) -> None:
        for registration in (params or {}).get("registrations", []):
            if registration.get("method") == "textDocument/diagnostic":
                options = registration.get("registerOptions") or {}
                if options.get("workspaceDiagnostics") is not True:
                    self._pull_registrations[registration.get("id", "")] = options.get("identifier")
                    self._registrations += 1
                    self._signal()

    async def _unregister(self, params: Any) -> None:
        for registration in (params or {}).get("unregisterations", []):
            self._pull_registrations.pop(registration.get("id", ""), None)

    async def _folders(self, params: Any) -> list[dict[str, str]]:
        return [{"name": "workspace", "uri": self.root.as_uri()}]

    def _signal(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    # --- our side ------------------------------------------------------------------------------------------

    async def initialize(self, connection: JsonRpcConnection, initialization: Mapping[str, Any]) -> None:
        self.connection, self.initialization = connection, initialization
        root = self.root.as_uri()
        reply = await connection.request(
            "initialize",
            {
                "rootUri": root,
                # No process id: a server in the sandbox's PID namespace cannot see ours, and one that watches it
                # (typescript-language-server) exits at once; the service ends its servers itself.
                "processId": None,
                "workspaceFolders": [{"name": "workspace", "uri": root}],
                "initializationOptions": dict(initialization),
                "capabilities": {
                    "window": {"workDoneProgress": True},
                    "workspace": {
                        "configuration": True,
                        "didChangeWatchedFiles": {"dynamicRegistration": True},
                        "diagnostics": {"refreshSupport": False},
                    },
                    "textDocument": {
                        "synchronization": {"didOpen": True, "didChange": True},
                        "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": True},
                        "publishDiagnostics": {"versionSupport": False},
                    },
                },
            },
            INITIALIZE_TIMEOUT,
        )
        capabilities = (reply or {}).get("capabilities") or {}
        sync = capabilities.get("textDocumentSync")
        self._sync = sync if isinstance(sync, int) else (sync or {}).get("change", 1)
        self._static_pull = bool(capabilities.get("diagnosticProvider"))
        await connection.notify("initialized", {})
        if initialization:
            await connection.notify("workspace/didChangeConfiguration", {"settings": dict(initialization)})

    @property
    def alive(self) -> bool:
        return self.connection is not None and not self.connection.closed

    def diagnostics(self) -> dict[Path, list[Diagnostic]]:
        merged: dict[Path, list[Diagnostic]] = {}
        for path in [*self._pushed, *self._pulled]:
            if path not in merged:
                merged[path] = list(dict.fromkeys([*self._pushed.get(path, []), *self._pulled.get(path, [])]))
        return merged

    async def open(self, path: Path) -> int:
        """Tell the server `path` changed on disk (opening it the first time); the document's new version."""
        connection = self._connected()
        text = await anyio.Path(path).read_text(encoding="utf-8", errors="replace")
        uri = path.as_uri()
        known = self._documents.get(path)
        change = 1 if known is None else 2  # FileChangeType: created, changed
        await connection.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": change}]})
        if known is None:
            self._pushed.pop(path, None)
            self._pulled.pop(path, None)
            language = LANGUAGE_IDS.get(path.suffix, "plaintext")
            document = {"uri": uri, "languageId": language, "version": 0, "text": text}
            await connection.notify("textDocument/didOpen", {"textDocument": document})
            self._documents[path] = (0, text)
            return 0
        version = known[0] + 1
        whole: dict[str, Any] = {"text": text}
        if self._sync == _INCREMENTAL:
            whole["range"] = {"start": {"line": 0, "character": 0}, "end": _end(known[1])}
        params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [whole]}
        await connection.notify("textDocument/didChange", params)
        self._documents[path] = (version, text)
        return version

    async def wait_for_diagnostics(self, path: Path, version: int, after: float) -> None:
        """Until the server reported `path`'s diagnostics (pulled, or a settled push), at most DOCUMENT_WAIT s."""
        with anyio.move_on_after(DOCUMENT_WAIT):
            if await self._ask_tsserver(path):
                return
            while True:
                if await self._pull(path):
                    return
                if await self._push_or_registration(path, version, after) != "registration":
                    return

    async def _pull(self, path: Path) -> bool:
        """Ask for `path`'s diagnostics where the server offers pulls; whether it answered for the file."""
        if not (self._static_pull or self._pull_registrations):
            return False
        identifiers = [None, *{value for value in self._pull_registrations.values() if value}]
        answered = False
        for identifier in identifiers:
            params: dict[str, Any] = {"textDocument": {"uri": path.as_uri()}}
            if identifier:
                params["identifier"] = identifier
            try:
                report = await self._connected().request("textDocument/diagnostic", params, PULL_TIMEOUT)
            except (TimeoutError, LanguageServerReplyError, LanguageServerGoneError):
                continue
            answered = self._keep_report(path, report) or answered
        return answered

    async def _ask_tsserver(self, path: Path) -> bool:
        """`path`'s diagnostics from tsserver, then every other open file's (a change can break the files that
        import it: a write reports them), each kept as the server's latest push for it; whether it answered.

        A server that refuses the request, or answers in another shape, is not asked again (another TypeScript
        server under the same id); one that is gone or still loading past the wait leaves the pushes to decide.
        """
        if not self._asks_tsserver or not await self._refresh_from_tsserver(path):
            return False
        async with anyio.create_task_group() as group:
            for other in [document for document in self._documents if document != path]:
                group.start_soon(self._refresh_from_tsserver, other)
        return True

    async def _refresh_from_tsserver(self, path: Path) -> bool:
        """Ask tsserver for each kind of `path`'s diagnostics and keep them; whether every kind was answered."""
        found: list[Diagnostic] = []
        for kind in tsserver_pull.KINDS:
            params = tsserver_pull.request_params(kind, path.as_uri())
            try:
                reply = await self._connected().request("workspace/executeCommand", params, DOCUMENT_WAIT)
            except (TimeoutError, LanguageServerGoneError):
                return False
            except LanguageServerReplyError:
                reply = None
            items = tsserver_pull.diagnostics_of(reply)
            if items is None:
                if self._asks_tsserver:
                    self._asks_tsserver = False
                    log.info("lsp.tsserver_pull_unavailable", server=self.server_id, kind=kind)
                return False
            found.extend(items)
        self._pushed[path] = found
        self._published[path] = (anyio.current_time(), None)
        self._signal()
        return True

    def _keep_report(self, path: Path, report: Any) -> bool:
        if not isinstance(report, dict):
            return False
        matched = False
        items = _diagnostics(report.get("items")) if "items" in report else None
        if items is not None:
            self._pulled[path] = items
            matched = True
        for uri, related in (report.get("relatedDocuments") or {}).items():
            other = _path(uri)
            related_items = _diagnostics(related.get("items")) if isinstance(related, dict) else None
            if other is not None and related_items is not None:
                self._pulled[other] = related_items
                matched = matched or other == path
        return matched

    async def _push_or_registration(self, path: Path, version: int, after: float) -> str:
        """ "push" once a push for `path` (newer than `after` or of `version`) settled; "registration" when the
        server registered a way to pull."""
        registrations = self._registrations
        while True:
            if self._registrations != registrations:
                return "registration"
            hit = self._published.get(path)
            fresh = hit is not None and (hit[1] == version or (hit[1] is None and hit[0] >= after))
            changed = self._changed
            if hit is not None and fresh:
                quiet = PUSH_DEBOUNCE - (anyio.current_time() - hit[0])
                if quiet <= 0:
                    return "push"
                with anyio.move_on_after(quiet):
                    await changed.wait()
                continue
            if not self.alive:
                return "closed"
            await changed.wait()

    async def workspace_symbols(self, query: str) -> Sequence[Any]:
        try:
            found = await self._connected().request("workspace/symbol", {"query": query}, PULL_TIMEOUT)
        except (TimeoutError, LanguageServerReplyError, LanguageServerGoneError):
            return []
        return found if isinstance(found, list) else []

    async def shutdown(self) -> None:
        """Ask the server to stop (its process is ended by the service whatever it answers)."""
        if not self.alive:
            return
        connection = self._connected()
        with anyio.move_on_after(1):
            try:
                await connection.request("shutdown", None, 1)
                await connection.notify("exit", None)
            except (TimeoutError, LanguageServerReplyError, LanguageServerGoneError):
                pass

    def _connected(self) -> JsonRpcConnection:
        if self.connection is None or self.connection.closed:
            raise LanguageServerGoneError(f"the {self.server_id} language server is not running")
        return self.connection


def _section(settings: Mapping[str, Any], section: object) -> Any:
    """`workspace/configuration`'s answer for one section: the part of the server's initialization it names."""
    if not isinstance(section, str) or not section:
        return dict(settings) or None
    value: Any = settings
    for key in section.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value
