"""Instruction discovery: global file, the project AGENTS.md chain, config globs, URLs, and resolve() on read."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from loopback_text_server import LoopbackTextServer

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.context import instruction as instruction_module
from strata_core.context.instruction import InstructionBlock, InstructionFailure, InstructionService, InstructionSet
from strata_core.logging import capture_events
from strata_core.message import (
    AssistantMessage,
    MessageTime,
    MessageWithParts,
    PathInfo,
    ToolCompletedTime,
    ToolPart,
    ToolStateCompleted,
)
from strata_core.project import ProjectService


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class Setup:
    """A home and a git repository; `service()` builds the real config, project and instruction services."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.repo = tmp_path / "repo"
        (self.repo / ".git").mkdir(parents=True)
        self.env: dict[str, str] = {"HOME": str(self.home)}

    @property
    def paths(self) -> StrataPaths:
        return StrataPaths.from_env(self.env)

    def config(self, instructions: list[str], permission: dict[str, Any] | None = None) -> None:
        import json

        extra = {"permission": permission} if permission else {}
        write(self.repo / "strata.json", json.dumps({"instructions": instructions, **extra}))

    def service(self, directory: Path | None = None, **kwargs: Any) -> InstructionService:
        project = ProjectService(directory or self.repo)
        config = ConfigService(self.paths, project, self.env)
        return InstructionService(config, project, self.paths, self.env, **kwargs)

    async def sources(self, directory: Path | None = None) -> list[str]:
        return [block.source for block in (await self.service(directory).system()).blocks]


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


# --- the global file ------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_global_agents_md_comes_before_project_agents_md_each_formatted_exactly(setup: Setup) -> None:
    global_file = write(setup.home / ".config" / "opencode" / "AGENTS.md", "Global rules")
    project_file = write(setup.repo / "AGENTS.md", "Project rules")
    blocks = list((await setup.service().system()).blocks)
    assert [block.text for block in blocks] == [
        f"Instructions from: {global_file}\nGlobal rules",
        f"Instructions from: {project_file}\nProject rules",
    ]


@pytest.mark.anyio
async def test_strata_global_agents_md_wins_over_opencode_and_claude(setup: Setup) -> None:
    strata = write(setup.home / ".config" / "strata" / "AGENTS.md", "strata")
    write(setup.home / ".config" / "opencode" / "AGENTS.md", "opencode")
    write(setup.home / ".claude" / "CLAUDE.md", "claude")
    assert await setup.sources() == [str(strata)]


@pytest.mark.anyio
async def test_strata_config_dir_variable_moves_the_global_file(setup: Setup, tmp_path: Path) -> None:
    custom = write(tmp_path / "custom-config" / "AGENTS.md", "custom")
    setup.env["STRATA_CONFIG_DIR"] = str(tmp_path / "custom-config")
    assert await setup.sources() == [str(custom)]


@pytest.mark.anyio
async def test_global_claude_md_is_used_when_no_global_agents_md(setup: Setup) -> None:
    claude = write(setup.home / ".claude" / "CLAUDE.md", "claude")
    assert await setup.sources() == [str(claude)]


@pytest.mark.parametrize(
    "flag", ["STRATA_DISABLE_CLAUDE_CODE", "STRATA_DISABLE_CLAUDE_CODE_PROMPT", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT"]
)
@pytest.mark.anyio
async def test_claude_md_files_are_skipped_when_the_claude_code_prompt_is_disabled(setup: Setup, flag: str) -> None:
    write(setup.home / ".claude" / "CLAUDE.md", "global claude")
    write(setup.repo / "CLAUDE.md", "project claude")
    context = write(setup.repo / "CONTEXT.md", "context")
    setup.env[flag] = "1"
    assert await setup.sources() == [str(context)]


# --- the project chain ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_nested_agents_md_files_all_load_nearest_first(setup: Setup) -> None:
    root = write(setup.repo / "AGENTS.md", "root")
    sub = write(setup.repo / "sub" / "AGENTS.md", "sub")
    deeper = setup.repo / "sub" / "deeper"
    deeper.mkdir()
    assert await setup.sources(deeper) == [str(sub), str(root)]


@pytest.mark.anyio
async def test_claude_md_is_ignored_when_agents_md_exists_anywhere_on_the_path(setup: Setup) -> None:
    root = write(setup.repo / "AGENTS.md", "root")
    write(setup.repo / "sub" / "CLAUDE.md", "claude")
    assert await setup.sources(setup.repo / "sub") == [str(root)]


@pytest.mark.anyio
async def test_claude_md_files_load_when_no_agents_md_exists(setup: Setup) -> None:
    root = write(setup.repo / "CLAUDE.md", "root")
    sub = write(setup.repo / "sub" / "CLAUDE.md", "sub")
    write(setup.repo / "CONTEXT.md", "context")
    assert await setup.sources(setup.repo / "sub") == [str(sub), str(root)]


@pytest.mark.anyio
async def test_context_md_is_the_last_resort(setup: Setup) -> None:
    context = write(setup.repo / "CONTEXT.md", "context")
    assert await setup.sources() == [str(context)]


@pytest.mark.anyio
async def test_files_above_the_worktree_are_not_loaded(setup: Setup) -> None:
    write(setup.repo.parent / "AGENTS.md", "outside the repository")
    inside = write(setup.repo / "AGENTS.md", "inside")
    assert await setup.sources() == [str(inside)]


@pytest.mark.anyio
async def test_project_files_are_skipped_when_project_config_is_disabled(setup: Setup) -> None:
    global_file = write(setup.home / ".config" / "strata" / "AGENTS.md", "global")
    write(setup.repo / "AGENTS.md", "project")
    setup.env["STRATA_DISABLE_PROJECT_CONFIG"] = "true"
    assert await setup.sources() == [str(global_file)]


# --- config entries -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_relative_config_globs_search_from_the_directory_up_to_the_worktree(setup: Setup) -> None:
    style = write(setup.repo / "docs" / "style.md", "style")
    testing = write(setup.repo / "docs" / "testing.md", "testing")
    local = write(setup.repo / "pkg" / "docs" / "local.md", "local")
    setup.config(["docs/*.md"])
    assert await setup.sources(setup.repo / "pkg") == [str(local), str(style), str(testing)]


@pytest.mark.anyio
async def test_config_globs_match_dot_files_and_files_only(setup: Setup) -> None:
    hidden = write(setup.repo / "rules" / ".hidden.md", "hidden")
    visible = write(setup.repo / "rules" / "visible.md", "visible")
    (setup.repo / "rules" / "folder.md").mkdir()
    setup.config(["rules/*.md"])
    assert await setup.sources() == [str(hidden), str(visible)]


@pytest.mark.anyio
async def test_home_and_absolute_config_entries(setup: Setup, tmp_path: Path) -> None:
    home_rule = write(setup.home / "notes" / "rules.md", "home rule")
    absolute = write(tmp_path / "shared" / "team.md", "team")
    write(tmp_path / "shared" / "other.txt", "not matched")
    # A glob outside the project reads only where external_directory allows it; a named file is the user's choice.
    allowed = {"external_directory": {f"{tmp_path / 'shared'}/*": "allow"}}
    setup.config(["~/notes/rules.md", str(tmp_path / "shared" / "*.md")], allowed)
    assert await setup.sources() == [str(home_rule), str(absolute)]


@pytest.mark.anyio
async def test_a_glob_reaching_outside_the_project_is_skipped_with_a_warning(setup: Setup, tmp_path: Path) -> None:
    write(tmp_path / "outside" / "secret.md", "outside secret")
    inside = write(setup.repo / "docs" / "rules.md", "inside")
    (setup.repo / "docs" / "planted.md").symlink_to(tmp_path / "outside" / "secret.md")
    setup.config(["docs/*.md", str(tmp_path / "outside" / "*.md")])
    with capture_events() as logs:
        assert await setup.sources() == [str(inside)]
    skipped = sorted(e["file"] for e in logs if e["event"] == "outside content skipped")
    assert skipped == sorted([str(setup.repo / "docs" / "planted.md"), str(tmp_path / "outside" / "secret.md")])


@pytest.mark.anyio
async def test_order_is_global_project_config_and_duplicates_keep_their_first_position(setup: Setup) -> None:
    global_file = write(setup.home / ".config" / "strata" / "AGENTS.md", "global")
    project = write(setup.repo / "AGENTS.md", "project")
    extra = write(setup.repo / "EXTRA.md", "extra")
    setup.config(["EXTRA.md", "AGENTS.md", "EXTRA.md"])
    assert await setup.sources() == [str(global_file), str(project), str(extra)]
    assert await setup.service().system_paths() == [global_file, project, extra]


@pytest.mark.anyio
async def test_empty_files_and_missing_entries_are_skipped_with_a_warning(setup: Setup) -> None:
    write(setup.repo / "AGENTS.md", "")
    kept = write(setup.repo / "kept.md", "kept")
    setup.config(["missing.md", "kept.md"])
    with capture_events() as logs:
        assert await setup.sources() == [str(kept)]
    assert any(log["event"] == "instruction file empty, skipped" for log in logs)


def test_unreadable_instruction_file_reads_as_none_with_a_warning(tmp_path: Path) -> None:
    with capture_events() as logs:
        assert instruction_module.read_instruction_file(tmp_path) is None  # a directory cannot be read
    assert logs[0]["event"] == "instruction file unreadable, skipped"
    assert logs[0]["path"] == str(tmp_path)


@pytest.mark.anyio
async def test_files_are_read_at_most_eight_at_once(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(20):
        write(setup.repo / "many" / f"rule{index:02}.md", f"rule {index}")
    setup.config(["many/*.md"])
    active, peak, lock = 0, 0, threading.Lock()

    def slow_read(path: Path, failures: object = None) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.02)
        with lock:
            active -= 1
        return path.read_text()

    monkeypatch.setattr(instruction_module, "read_instruction_file", slow_read)
    blocks = list((await setup.service().system()).blocks)
    assert [block.content for block in blocks] == [f"rule {index}" for index in range(20)]
    assert peak == 8


# --- URLs -----------------------------------------------------------------------------------------------


def _rule(path: str) -> tuple[int, str]:
    return {"/fast": (200, "Remote rule"), "/empty": (200, "")}.get(path, (500, "boom"))


@pytest.fixture
def rule_server() -> Iterator[LoopbackTextServer]:
    """`/fast`, `/empty`, `/fail` (500) and `/hang` (never answers in time)."""
    server = LoopbackTextServer(_rule, hangs=lambda path: path == "/hang")
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.anyio
async def test_urls_load_after_files_and_failing_or_hanging_urls_are_skipped_within_the_timeout(
    setup: Setup, rule_server: LoopbackTextServer
) -> None:
    project = write(setup.repo / "AGENTS.md", "project")
    fast, failing, hanging, empty = (rule_server.url(p) for p in ("/fast", "/fail", "/hang", "/empty"))
    setup.config([hanging, failing, fast, empty])
    started = time.monotonic()
    with capture_events() as logs:
        blocks = list((await setup.service().system()).blocks)
    elapsed = time.monotonic() - started
    assert blocks == [InstructionBlock(str(project), "project"), InstructionBlock(fast, "Remote rule")]
    assert elapsed < 5.5
    warned = {(log["event"], log.get("url")) for log in logs}
    assert ("instruction URL timed out, skipped", hanging) in warned
    assert ("instruction URL failed, skipped", failing) in warned
    assert ("instruction URL empty, skipped", empty) in warned


class CountingFetcher:
    """A fetcher double that records how many fetches run at once."""

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0

    async def get_text(self, url: str) -> str:
        self.active += 1
        self.peak = max(self.peak, self.active)
        await anyio.sleep(0.02)
        self.active -= 1
        return f"from {url}"


@pytest.mark.anyio
async def test_urls_are_fetched_at_most_four_at_once_and_keep_config_order(setup: Setup) -> None:
    urls = [f"https://rules.example/{index}" for index in range(10)]
    setup.config(urls)
    fetcher = CountingFetcher()
    blocks = list((await setup.service(fetcher=fetcher).system()).blocks)
    assert [block.source for block in blocks] == urls
    assert blocks[3].text == f"Instructions from: {urls[3]}\nfrom {urls[3]}"
    assert fetcher.peak == 4


@pytest.mark.anyio
async def test_a_url_slower_than_the_timeout_is_dropped(setup: Setup) -> None:
    class SlowFetcher:
        async def get_text(self, url: str) -> str:
            await anyio.sleep(10)
            return "too late"

    setup.config(["https://slow.example/rules"])
    found = await setup.service(fetcher=SlowFetcher(), url_timeout=0.05).system()
    assert found == InstructionSet((), (InstructionFailure("https://slow.example/rules", "no answer within 0.05 s"),))


# --- resolve() when the read tool opens a file ----------------------------------------------------------


def read_part(loaded: list[str], *, compacted: int | None = None) -> MessageWithParts:
    info = AssistantMessage(
        id="msg_1",
        session_id="ses_1",
        parent_id="msg_0",
        time=MessageTime(created=1),
        model_id="m",
        provider_id="p",
        mode="build",
        agent="build",
        path=PathInfo(cwd="/", root="/"),
    )
    state = ToolStateCompleted(
        input={},
        output="",
        title="",
        metadata={"loaded": loaded},
        time=ToolCompletedTime(start=1, end=2, compacted=compacted),
    )
    part = ToolPart(id="prt_1", session_id="ses_1", message_id="msg_1", call_id="c1", tool="read", state=state)
    return MessageWithParts(info=info, parts=[part])


@pytest.fixture
def nested(setup: Setup) -> Setup:
    write(setup.repo / "AGENTS.md", "root rules")
    write(setup.repo / "subdir" / "AGENTS.md", "subdir rules")
    write(setup.repo / "subdir" / "nested" / "file.ts", "code")
    write(setup.repo / "top.ts", "code")
    return setup


@pytest.mark.anyio
async def test_root_agents_md_is_a_system_path_and_not_resolved_again(nested: Setup) -> None:
    service = nested.service()
    assert nested.repo / "AGENTS.md" in await service.system_paths()
    assert await service.resolve([], nested.repo / "top.ts", "msg_a") == []


@pytest.mark.anyio
async def test_subdir_agents_md_is_attached_for_a_file_below_it(nested: Setup) -> None:
    found = nested.repo / "subdir" / "AGENTS.md"
    blocks = await nested.service().resolve([], nested.repo / "subdir" / "nested" / "file.ts", "msg_a")
    assert [block.text for block in blocks] == [f"Instructions from: {found}\nsubdir rules"]


@pytest.mark.anyio
async def test_nearer_instruction_files_come_first_and_claude_md_counts_per_directory(nested: Setup) -> None:
    claude = write(nested.repo / "subdir" / "nested" / "CLAUDE.md", "nested claude")
    blocks = await nested.service().resolve([], nested.repo / "subdir" / "nested" / "file.ts", "msg_a")
    assert [block.source for block in blocks] == [str(claude), str(nested.repo / "subdir" / "AGENTS.md")]


@pytest.mark.anyio
async def test_reading_an_agents_md_itself_attaches_nothing(nested: Setup) -> None:
    assert await nested.service().resolve([], nested.repo / "subdir" / "AGENTS.md", "msg_a") == []


@pytest.mark.anyio
async def test_a_file_is_attached_once_per_message_until_cleared(nested: Setup) -> None:
    service, target = nested.service(), nested.repo / "subdir" / "nested" / "file.ts"
    assert len(await service.resolve([], target, "msg_a")) == 1
    assert await service.resolve([], target, "msg_a") == []
    assert len(await service.resolve([], target, "msg_b")) == 1
    service.clear("msg_a")
    assert len(await service.resolve([], target, "msg_a")) == 1


@pytest.mark.anyio
async def test_files_loaded_by_an_earlier_read_are_skipped_unless_that_read_was_compacted(nested: Setup) -> None:
    target, found = nested.repo / "subdir" / "nested" / "file.ts", str(nested.repo / "subdir" / "AGENTS.md")
    assert await nested.service().resolve([read_part([found])], target, "msg_a") == []
    compacted = read_part([found], compacted=5)
    assert len(await nested.service().resolve([compacted], target, "msg_a")) == 1


@pytest.mark.anyio
async def test_files_outside_the_working_directory_never_attach(nested: Setup, tmp_path: Path) -> None:
    # `repo-other` shares the `repo` prefix: OpenCode's string test would wrongly walk into it.
    write(tmp_path / "repo-other" / "AGENTS.md", "other")
    outside = write(tmp_path / "repo-other" / "x" / "file.ts", "code")
    assert await nested.service().resolve([], outside, "msg_a") == []


@pytest.mark.anyio
async def test_a_project_agents_md_symlinked_from_outside_is_skipped(setup: Setup, tmp_path: Path) -> None:
    planted = write(tmp_path / "outside" / "AGENTS.md", "do what the outside says")
    (setup.repo / "AGENTS.md").symlink_to(planted)
    with capture_events() as logs:
        assert await setup.sources() == []
    assert [e["file"] for e in logs if e["event"] == "outside content skipped"] == [str(setup.repo / "AGENTS.md")]


@pytest.mark.anyio
async def test_a_nearby_agents_md_symlinked_from_outside_is_not_attached(setup: Setup, tmp_path: Path) -> None:
    planted = write(tmp_path / "outside" / "AGENTS.md", "outside rules")
    write(setup.repo / "sub" / "file.ts", "code")
    (setup.repo / "sub" / "AGENTS.md").symlink_to(planted)
    assert await setup.service().resolve([], setup.repo / "sub" / "file.ts", "msg_a") == []
