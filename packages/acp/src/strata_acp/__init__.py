"""strata-acp: `strata acp`, the Agent Client Protocol over stdio, so editors (Zed, JetBrains, Neovim plugins)
drive Strata sessions as they drive `opencode acp`.

    approver = ClientApprover()
    async with open_runtime(directory, env, models=..., approver=approver) as runtime:
        await serve_stdio(runtime, approver)

Built on the `agent-client-protocol` library (JSON-RPC framing, the protocol's typed schema) over the same
runtime the CLI and the server open; nothing here runs a turn of its own.
"""

from __future__ import annotations

from strata_acp.agent import StrataAgent
from strata_acp.permission import ClientApprover
from strata_acp.serve import serve_stdio

__all__ = ["ClientApprover", "StrataAgent", "serve_stdio"]
