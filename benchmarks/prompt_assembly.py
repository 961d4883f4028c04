"""System-prompt assembly with 200 instruction files and 8 URLs, one of which never answers.

The fixture is a git project whose working directory is five levels deep, with an AGENTS.md at every level
(5 files), and a `strata.json` whose `instructions` name two globs (`rules/**/*.md`: 150 files three levels
down, `docs/*.md`: 45 files) and 8 URLs on a loopback server: 7 answer at once, 1 never answers (the 5 s URL
timeout drops it). Each timed run builds fresh services (project, config, instructions, skills), exactly as the
first model call of a session does, and awaits `SystemPromptService.build(...)`. The second variant leaves the
hanging URL out.

    uv run python -m benchmarks --only prompt_assembly
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from benchmarks.common import Result, UrlServer, at_most, atime_runs, median, run_async, url_server, write_files
from strata_core.clock import SystemClock
from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.context.agent import AgentService
from strata_core.context.instruction import URL_TIMEOUT_SECONDS, InstructionService
from strata_core.context.skill import SkillService
from strata_core.llm import ModelInfo
from strata_core.project import ProjectService
from strata_core.prompt.system import AssembledSystemPrompt, SystemPromptRequest, SystemPromptService

NESTED_DEPTH = 4
"""Directories between the worktree and the working directory; each level has an AGENTS.md."""
RULE_GROUPS, RULE_SUBDIRS, RULES_PER_DIR = 10, 3, 5
DOC_FILES = 45
ANSWERING_URLS = 7
INSTRUCTION_FILES = NESTED_DEPTH + 1 + RULE_GROUPS * RULE_SUBDIRS * RULES_PER_DIR + DOC_FILES
MODEL = ModelInfo(provider_id="mock", id="gpt-4o-mock")
RULE_TEXT = "\n".join(f"- Rule line {n}: keep functions short and name them after what they do." for n in range(12))


@frozen
class PromptFixture:
    home: Path
    worktree: Path
    directory: Path
    """The working directory, NESTED_DEPTH levels below the worktree."""

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home)}


def build_fixture(root: Path, urls: Sequence[str]) -> PromptFixture:
    """Write the project: the AGENTS.md chain, 195 rule and doc files, and a strata.json naming them and `urls`."""
    worktree, home = root / "repo", root / "home"
    (worktree / ".git").mkdir(parents=True)
    home.mkdir()
    files: dict[str, str] = {}
    levels = [""]  # the worktree, pkg/, pkg/l1/, ...: the working directory is the last
    for depth in range(1, NESTED_DEPTH + 1):
        levels.append(f"{levels[-1]}{'pkg' if depth == 1 else f'l{depth - 1}'}/")
    for depth, level in enumerate(levels):
        files[f"{level}AGENTS.md"] = f"# Level {depth}\n{RULE_TEXT}\n"
    for group in range(RULE_GROUPS):
        for sub in range(RULE_SUBDIRS):
            for n in range(RULES_PER_DIR):
                files[f"rules/g{group}/s{sub}/r{n}.md"] = f"# Rule {group}.{sub}.{n}\n{RULE_TEXT}\n"
    for n in range(DOC_FILES):
        files[f"docs/d{n:02d}.md"] = f"# Doc {n}\n{RULE_TEXT}\n"
    files["strata.json"] = json.dumps({"instructions": ["rules/**/*.md", "docs/*.md", *urls]}, indent=2)
    write_files(worktree, files)
    return PromptFixture(home=home, worktree=worktree, directory=worktree / levels[-1].rstrip("/"))


def fixture_urls(server: UrlServer, with_hang: bool) -> list[str]:
    urls = [server.url(f"/instructions/u{n}") for n in range(ANSWERING_URLS)]
    if with_hang:
        urls.insert(3, server.url("/hang/never"))
    return urls


async def build_once(fixture: PromptFixture, url_timeout: float = URL_TIMEOUT_SECONDS) -> AssembledSystemPrompt:
    """The system prompt of a session's first model call, from fresh services."""
    env, paths = fixture.env, StrataPaths.from_env(fixture.env)
    project = ProjectService(fixture.directory)
    config = ConfigService(paths, project, env)
    instructions = InstructionService(config, project, paths, env, url_timeout=url_timeout)
    skills = SkillService(config, project, paths, env)
    agents = AgentService(config, paths, skills.dirs, project)
    service = SystemPromptService(project, instructions, skills, SystemClock())
    return await service.build(SystemPromptRequest(await agents.default_agent(), MODEL))


def check(prompt: AssembledSystemPrompt) -> None:
    """Every file and every answering URL made it into the prompt (a benchmark of a broken build is worthless)."""
    sources = [layer.source for layer in prompt.layers if layer.kind == "instructions"]
    files = [s for s in sources if not s.startswith("http")]
    urls = [s for s in sources if s.startswith("http")]
    if len(files) != INSTRUCTION_FILES or len(urls) != ANSWERING_URLS:
        raise AssertionError(
            f"expected {INSTRUCTION_FILES} files and {ANSWERING_URLS} URLs, got {len(files)}, {len(urls)}"
        )


def measure(with_hang: bool, runs: int, url_timeout: float = URL_TIMEOUT_SECONDS, warmup: bool = True) -> list[float]:
    """Seconds per `build` (fresh services each time), after one untimed warm-up build."""
    with tempfile.TemporaryDirectory(prefix="strata-bench-prompt.") as tmp, url_server() as server:
        fixture = build_fixture(Path(tmp), fixture_urls(server, with_hang))

        async def main() -> list[float]:
            if warmup:
                check(await build_once(fixture, url_timeout))

            async def once() -> None:
                check(await build_once(fixture, url_timeout))

            return await atime_runs(once, runs)

        times: list[float] = run_async(main)
        return times


def run(quick: bool, runs: int | None = None) -> list[Result]:
    fast_runs = runs or (3 if quick else 10)
    hang_runs = runs or (1 if quick else 3)
    scenario = f"system prompt, {INSTRUCTION_FILES} instruction files + 8 URLs"
    answering = measure(with_hang=False, runs=fast_runs)
    # Imports and caches are warm now: a warm-up build of the hanging variant would only add 5 s.
    hanging = measure(with_hang=True, runs=hang_runs, warmup=False)
    return [
        Result(scenario, "wall, one URL never answers", "s", median(hanging), target=at_most(5.3), runs=hang_runs),
        Result(
            f"system prompt, {INSTRUCTION_FILES} instruction files + {ANSWERING_URLS} URLs",
            "wall, every URL answers",
            "ms",
            median(answering) * 1000,
            target=at_most(100),
            runs=fast_runs,
        ),
    ]


if __name__ == "__main__":
    for result in run(quick=False):
        print(json.dumps(result.to_json()))
