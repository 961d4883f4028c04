"""OpenCode's question routes (`/question`, `/question/{id}/reply`, `/reject`): the questions its `question` tool
asks the user. Strata has no question tool (an agent asks only permission questions, `routes/permissions.py`),
so none is ever pending: the list is empty and an answer names a question that does not exist, answered as
OpenCode answers one it does not know (`404`, `QuestionNotFoundError`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_server.errors import ApiError
from strata_server.state import server_state


async def questions(request: Request) -> JSONResponse:
    return JSONResponse([])


async def answer(request: Request) -> JSONResponse:
    state = server_state(request)
    operation = "question.reply" if request.url.path.endswith("/reply") else "question.reject"
    await state.body(request, operation, optional=operation == "question.reject")
    request_id = str(request.path_params["requestID"])
    message = f"Question request not found: {request_id}"
    body = {"_tag": "QuestionNotFoundError", "requestID": request_id, "message": message}
    raise ApiError(404, "QuestionNotFoundError", message, body=body)


ROUTES = [
    Route("/question", questions, methods=["GET"]),
    Route("/question/{requestID}/reply", answer, methods=["POST"]),
    Route("/question/{requestID}/reject", answer, methods=["POST"]),
]
