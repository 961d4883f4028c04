"""Language servers for the files the agent edits: the config's `lsp` key, OpenCode's built-ins and behaviour.

- `contract`: the `LanguageServers` service the tools and the server call, and `NoLanguageServers`
  (nothing configured: nothing starts, nothing is imported); `values`: diagnostics and statuses.
- `report`: diagnostics as the model reads them in edit, write and apply_patch results (OpenCode's text).
- `servers`: which servers a project gets (pyright, typescript-language-server, the config's own).
- `service.ProjectLanguageServers`: starts them on first need, inside the sandbox MCP servers get;
  `client`: one server (initialize, documents, pushed and pulled diagnostics); `jsonrpc`: the framing.

Only `contract`, `values` and `report` load without the `lsp` extra (`lsprotocol`, which checks the servers' messages).
"""

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.lsp.contract import LanguageServers, NoLanguageServers
    from strata_core.lsp.service import ProjectLanguageServers
    from strata_core.lsp.values import Diagnostic, ServerStatus

__all__ = ["Diagnostic", "LanguageServers", "NoLanguageServers", "ProjectLanguageServers", "ServerStatus"]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Diagnostic": "strata_core.lsp.values",
        "LanguageServers": "strata_core.lsp.contract",
        "NoLanguageServers": "strata_core.lsp.contract",
        "ServerStatus": "strata_core.lsp.values",
        "ProjectLanguageServers": "strata_core.lsp.service",
    },
)
