"""`/doc` documents exactly what the app serves, in OpenCode's terms, and stays in step with OpenCode's document."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest
from starlette.routing import Route

from strata_server.app import implemented_routes
from strata_server.openapi import document, opencode_routes

REPO = Path(__file__).resolve().parents[2]
REFERENCE = Path("/work/shared/reference/opencode-openapi-1.18.33.json")
BUILDER = REPO / "packages/server/tools/build_openapi.py"


def served() -> set[tuple[str, str]]:
    return {
        (route.path, method.lower())
        for route in implemented_routes()
        if isinstance(route, Route)
        for method in route.methods or ()
        if method != "HEAD"
    }


def test_the_document_lists_exactly_the_implemented_routes() -> None:
    documented = {(path, method) for path, item in document()["paths"].items() for method in item}
    assert documented == served()


def test_every_implemented_route_but_doc_is_one_of_opencodes() -> None:
    theirs = {(path, method.lower()) for path, methods in opencode_routes().items() for method in methods}
    assert served() - theirs == {("/doc", "get")}


def builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_openapi", BUILDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not REFERENCE.exists(), reason=f"OpenCode's document is not at {REFERENCE}")
def test_the_committed_documents_are_what_the_builder_makes_from_opencodes() -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    tool = builder()
    assert document() == json.loads(json.dumps(tool.build(reference)))
    assert opencode_routes() == tool.opencode_routes(reference)


def test_the_document_carries_no_prose_of_opencodes() -> None:
    def prose(value: object) -> list[str]:
        if isinstance(value, dict):
            own = [v for k, v in value.items() if k == "description" and isinstance(v, str)]
            return own + [text for v in value.values() for text in prose(v)]
        if isinstance(value, list):
            return [text for v in value for text in prose(v)]
        return []

    assert prose(document()["paths"]) == [] and prose(document()["components"]) == []


def test_the_readme_lists_exactly_the_routes_that_answer_501() -> None:
    from strata_server.routes.unimplemented import unimplemented_routes

    answered = {
        f"{' '.join(sorted((r.methods or set()) - {'HEAD'}))} {r.path.replace('{rest:path}', '*')}"
        for r in unimplemented_routes(implemented_routes())
        if isinstance(r, Route)
    }
    readme = (REPO / "packages/server/README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- 501-routes -->", 1)[1].split("<!-- /501-routes -->", 1)[0]
    listed = set(re.findall(r"`((?:(?:GET|POST|PUT|PATCH|DELETE) )+/[^`]*)`", section))
    assert answered, "some OpenCode route should still answer 501, or this section should go"
    assert listed == answered
