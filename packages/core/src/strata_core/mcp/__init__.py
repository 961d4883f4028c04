"""The MCP client: the `mcp` config's servers, their tools and resources, as tools of a session.

- `servers.McpServersRunning` starts every enabled server (concurrently, each bounded by its timeout) and
  closes them; `configured_servers` builds it from a loaded config (local servers in the shell sandbox);
  `McpServers` is what the runtime holds (`Runtime.mcp`): statuses and tools.
- `connection.ServerConnection`: one server over the official `mcp` SDK (stdio, streamable HTTP, SSE).
- `launch.local_launch`: the one place a local server's argv, environment and directory are decided.
- `tools.McpTool`, `resource_tools`: the tools offered; `results`: MCP results converted as OpenCode does.

Nothing imports this package unless the config has an `mcp` block, and the SDK itself is imported when a
server starts, so a run without servers never loads it. Without the SDK (strata-core's `mcp` extra) each
server fails as any server that cannot start does (status `failed`, one `McpServerFailed` event), its error
naming the extra, and offers no tools; the rest of the runtime carries on.
"""

from strata_core.mcp.connection import McpStatus, ServerConnection
from strata_core.mcp.launch import LocalLaunch, local_launch
from strata_core.mcp.servers import McpServers, McpServersRunning, configured_servers
from strata_core.mcp.tools import McpTool, sanitize, tool_name

__all__ = [
    "LocalLaunch",
    "McpServers",
    "McpServersRunning",
    "McpStatus",
    "McpTool",
    "ServerConnection",
    "configured_servers",
    "local_launch",
    "sanitize",
    "tool_name",
]
