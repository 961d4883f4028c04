"""Provider credentials (`PUT DELETE /auth/{providerID}`): what OpenCode's TUI `/connect` dialog stores.

Both write Strata's `auth.json` (`strata_core.config.CredentialStore`) through the catalogue's own store, so the
next listing and the next turn use the new key without a restart; both answer `true`, as OpenCode does. A key
is never logged and never echoed: a body that is not one of OpenCode's `Auth` objects is refused with a message
naming the field, not its value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core import redaction
from strata_core.config import CredentialStore
from strata_core.logging import get_logger
from strata_core.runtime import Runtime
from strata_server.body import describe
from strata_server.errors import bad_request
from strata_server.openapi import document
from strata_server.provider_shapes import catalog_of
from strata_server.state import server_state

log = get_logger(__name__)
T = TypeVar("T")

AUTH_SCHEMAS = {"api": "ApiAuth", "oauth": "OAuth", "wellknown": "WellKnownAuth"}
"""OpenCode's `Auth` union: each `type` and the component schema of its branch."""


def credential_store(runtime: Runtime) -> CredentialStore:
    """The catalogue's store (so its next lookup sees a change at once), or one over the runtime's paths when
    the runtime was given another model resolver."""
    catalog = catalog_of(runtime.models)
    if catalog is not None:
        return catalog.credentials
    return CredentialStore.from_paths(runtime.container.paths())


async def set_credential(request: Request) -> JSONResponse:
    state = server_state(request)
    provider_id = request.path_params["providerID"]
    body = await state.body(request, "auth.set", validate=False)
    _check_auth(body)
    await _in_thread(lambda: credential_store(state.runtime).set(provider_id, body))
    log.info("credential_stored", provider=provider_id, type=body.get("type"))
    return JSONResponse(True)


async def remove_credential(request: Request) -> JSONResponse:
    state = server_state(request)
    provider_id = request.path_params["providerID"]
    removed = await _in_thread(lambda: credential_store(state.runtime).remove(provider_id))
    log.info("credential_removed", provider=provider_id, found=removed)
    return JSONResponse(True)


async def _in_thread(work: Callable[[], T]) -> T:
    return await anyio.to_thread.run_sync(work)


def _check_auth(body: dict[str, Any]) -> None:
    """Refuse a body that is not one of OpenCode's `Auth` objects, checked against the branch its `type` names
    (so the message is about that branch's fields, where the union's would only say "none matched")."""
    kind = body.get("type")
    schema_name = AUTH_SCHEMAS.get(kind) if isinstance(kind, str) else None
    if schema_name is None:
        raise bad_request(f"type: it must be one of {', '.join(repr(k) for k in AUTH_SCHEMAS)}.")
    schemas = document()["components"]["schemas"]
    invalid = best_match(Draft202012Validator(schemas[schema_name]).iter_errors(body))
    if invalid is not None:
        # jsonschema quotes the value it refused; a key in it must not travel back (or into a log).
        raise bad_request(_without_values(describe(invalid)))


def _without_values(message: str) -> str:
    """`key: 5 is not of type 'string'` as `key: it is not of type 'string'`, and `body: {...} is not valid
    under any of the given schemas` without the body: the value jsonschema quotes before ` is ` goes (unless it
    is a missing property's name)."""
    where, sep, what = message.partition(": ")
    if sep and " is " in what and not what.endswith("is a required property"):
        what = "it is " + what.split(" is ", 1)[1]
    return redaction.redact_text(f"{where}{sep}{what}")


ROUTES = [
    Route("/auth/{providerID}", set_credential, methods=["PUT"]),
    Route("/auth/{providerID}", remove_credential, methods=["DELETE"]),
]
