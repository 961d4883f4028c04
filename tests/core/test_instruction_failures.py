"""The Instruction service's result: each source that gave nothing is reported as data beside the blocks, the
URL phase has one deadline for all its URLs, and a turn's `UrlCache` makes each URL a single fetch."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_text_server import LoopbackTextServer

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.context.instruction import (
    InstructionBlock,
    InstructionFailure,
    InstructionService,
    UrlCache,
    read_instruction_file,
)
from strata_core.project import ProjectService

pytestmark = pytest.mark.anyio


def _answer(path: str) -> tuple[int, str]:
    return {"/rules": (200, "Remote rule")}.get(path, (500, "boom"))


@pytest.fixture
def server() -> Iterator[LoopbackTextServer]:
    """`/rules` answers, `/broken` is a 500, every `/hang...` path never answers."""
    served = LoopbackTextServer(_answer, hangs=lambda path: path.startswith("/hang"))
    yield served
    served.close()


def _service(tmp_path: Path, instructions: list[str], **settings: Any) -> InstructionService:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / "strata.json").write_text(json.dumps({"instructions": instructions}))
    env = {"HOME": str(tmp_path / "home")}
    paths, project = StrataPaths.from_env(env), ProjectService(repo)
    return InstructionService(ConfigService(paths, project, env), project, paths, env, **settings)


async def test_failed_urls_are_reported_beside_the_blocks(tmp_path: Path, server: LoopbackTextServer) -> None:
    rules, broken, hanging = server.url("/rules"), server.url("/broken"), server.url("/hang")
    found = await _service(tmp_path, [broken, rules, hanging], url_timeout=0.5).system()
    assert found.blocks == (InstructionBlock(rules, "Remote rule"),)
    assert found.failures == (
        InstructionFailure(broken, "HTTP 500"),
        InstructionFailure(hanging, "no answer within 0.5 s"),
    )


async def test_five_hanging_urls_share_one_deadline(tmp_path: Path, server: LoopbackTextServer) -> None:
    urls = [server.url(f"/hang{index}") for index in range(5)]
    found = await _service(tmp_path, urls, url_timeout=0.5).system()
    assert found.blocks == ()
    assert found.failures == tuple(InstructionFailure(url, "no answer within 0.5 s") for url in urls)
    # Four at once, and the deadline is the phase's: the fifth never got its turn (a deadline per URL would
    # have started it once the first four had timed out).
    assert sorted(server.requests) == [f"/hang{index}" for index in range(4)]


async def test_settings_set_the_url_concurrency(tmp_path: Path, server: LoopbackTextServer) -> None:
    urls = [server.url(f"/hang{index}") for index in range(5)]
    found = await _service(tmp_path, urls, url_timeout=0.5, url_concurrency=5).system()
    assert len(found.failures) == 5 and sorted(server.requests) == [f"/hang{index}" for index in range(5)]


async def test_a_turns_url_cache_fetches_each_url_once(tmp_path: Path, server: LoopbackTextServer) -> None:
    rules, hanging = server.url("/rules"), server.url("/hang")
    service = _service(tmp_path, [rules, hanging], url_timeout=0.5)
    turn = UrlCache()
    first = await service.system(turn)
    again = await service.system(turn)
    assert again == first and first.failures == (InstructionFailure(hanging, "no answer within 0.5 s"),)
    assert sorted(server.requests) == ["/hang", "/rules"]
    await service.system(UrlCache())  # the next turn asks again
    assert sorted(server.requests) == ["/hang", "/hang", "/rules", "/rules"]


def test_an_unreadable_file_is_a_failure(tmp_path: Path) -> None:
    failures: list[InstructionFailure] = []
    assert read_instruction_file(tmp_path, failures) is None  # a directory cannot be read as text
    assert [failure.source for failure in failures] == [str(tmp_path)] and failures[0].reason
