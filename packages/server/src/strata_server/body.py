"""Reading a request's JSON body: bounded, parsed, and checked against the operation's schema, with errors
that say what was wrong and where (`400 BadRequest`), before anything is stored."""

from __future__ import annotations

import json
from typing import Any

from jsonschema.exceptions import ValidationError, best_match
from starlette.requests import Request

from strata_core import json_text
from strata_server.errors import bad_request
from strata_server.openapi import body_validator
from strata_server.security import body_too_large


async def read_json(
    request: Request, operation_id: str, max_bytes: int, *, optional: bool = False, validate: bool = True
) -> dict[str, Any]:
    """The body of `operation_id`, validated (unless the route checks it itself, as one holding a secret
    does, so no message quotes it); `{}` for an absent body when the operation allows one."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > max_bytes:
            raise body_too_large(max_bytes)
    if not raw.strip():
        if optional:
            return {}
        raise bad_request("The request needs a JSON body.")
    try:
        data = json_text.loads(raw.decode("utf-8"))
    except json_text.JsonNestingError as error:
        raise bad_request(f"The request body is {error}.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        where = f" (line {error.lineno}, column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
        raise bad_request(f"The request body is not valid JSON{where}.") from error
    if not isinstance(data, dict):
        raise bad_request(f"The request body must be a JSON object, not {type(data).__name__}.")
    validator = body_validator(operation_id) if validate else None
    if validator is not None:
        invalid = best_match(validator.iter_errors(data))
        if invalid is not None:
            raise bad_request(describe(invalid))
    return data


def describe(error: ValidationError) -> str:
    """`parts[0].text: 5 is not of type 'string'` (for a union, jsonschema's pick of the closest branch)."""
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"{path or 'body'}: {error.message}"
