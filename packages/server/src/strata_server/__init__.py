"""strata-server: OpenCode's HTTP API and event stream over Strata's runtime (`strata serve`).

`serve(runtime, settings)` serves a runtime opened with `runtime_options(settings)` (its approver asks over
the API) until the process is stopped; `create_app(state)` is the ASGI app itself, for embedding.
"""

from strata_server.app import create_app
from strata_server.server import ServerStartError, runtime_options, serve
from strata_server.settings import ServerSettings, ServerSettingsError

__all__ = ["ServerSettings", "ServerSettingsError", "ServerStartError", "create_app", "runtime_options", "serve"]
