"""System prompt: provider prompt rules, the environment block, the skills block, and assembly order."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import anyio
import pytest
from loopback_text_server import LoopbackTextServer

from strata_core.clock import FrozenClock
from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.context.agent import AgentInfo, AgentService
from strata_core.context.instruction import InstructionBlock, InstructionService, InstructionSet, UrlCache
from strata_core.context.skill import BUILTIN_LOCATION, SkillInfo, SkillService
from strata_core.llm import ModelInfo
from strata_core.permission.rules import Rule, from_config
from strata_core.project import ProjectInfo, ProjectService
from strata_core.prompt.reminders import STRUCTURED_OUTPUT_SYSTEM_PROMPT
from strata_core.prompt.system import (
    SKILLS_INTRO,
    SystemPromptParts,
    SystemPromptRequest,
    SystemPromptService,
    assemble,
    date_string,
    environment,
    provider_prompt_family,
    skills_block,
)
from strata_core.texts import read_prompt

FIXTURES = Path(__file__).parent.parent / "oracle_fixtures"
TODAY = date(2026, 12, 1)


def fixed_clock() -> FrozenClock:
    return FrozenClock.at(datetime(TODAY.year, TODAY.month, TODAY.day, 12, 0))


def agent(name: str = "build", prompt: str | None = None, rules: tuple[Rule, ...] = ()) -> AgentInfo:
    return AgentInfo(name=name, mode="primary", permission=rules, prompt=prompt)


def model(api_id: str, provider: str = "mock") -> ModelInfo:
    return ModelInfo(provider_id=provider, id=f"{api_id}-alias", api_id=api_id)


# --- provider prompt selection (reference 2.2) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("api_id", "family"),
    [
        ("gpt-4", "beast"),
        ("gpt-4o", "beast"),
        ("gpt-4.1-mini", "beast"),
        ("o1-preview", "beast"),
        ("o3-mini", "beast"),
        ("some-model-turbo1", "beast"),  # quirk: any `o1` substring
        ("claude-o3-hybrid", "beast"),  # rule 1 comes before the claude rule
        ("gpt-5-codex", "codex"),
        ("gpt-5.1-codex-max", "codex"),
        ("gpt-5", "gpt"),
        ("gpt-oss-120b", "gpt"),
        ("gemini-2.5-pro", "gemini"),
        ("gemini", "default"),  # needs the dash
        ("claude-sonnet-4-5", "anthropic"),
        ("Claude-Sonnet", "default"),  # rules 1-5 are case-sensitive
        ("GPT-5", "default"),
        ("arcee-ai/Trinity-large", "trinity"),  # rules 6-7 are not
        ("moonshotai/Kimi-K2", "kimi"),
        ("codex-mini", "default"),  # codex needs gpt too
        ("llama-3.3-70b", "default"),
    ],
)
def test_provider_prompt_family_follows_the_ordered_rules(api_id: str, family: str) -> None:
    assert provider_prompt_family(api_id) == family


@pytest.mark.parametrize("family", ["beast", "codex", "gpt", "gemini", "anthropic", "trinity", "kimi", "default"])
def test_every_provider_prompt_introduces_strata_in_its_own_words(family: str) -> None:
    text = read_prompt(f"provider/{family}.txt")
    assert 2_000 <= len(text.encode()) <= 6_000
    assert "Strata" in text[:200]
    assert "opencode" not in text.lower()


def test_provider_prompts_are_distinct() -> None:
    families = ["beast", "codex", "gpt", "gemini", "anthropic", "trinity", "kimi", "default"]
    assert len({read_prompt(f"provider/{family}.txt") for family in families}) == len(families)


# --- environment block (reference 2.3) ------------------------------------------------------------------


def test_environment_block_is_byte_for_byte_opencodes() -> None:
    project = ProjectInfo(Path("/work/app/pkg"), Path("/work/app"), "git", "linux", "abc")
    text = environment(model("gpt-4o-mock"), project, date(2026, 3, 5))
    assert text == (
        "You are powered by the model named gpt-4o-mock. The exact model ID is mock/gpt-4o-mock\n"
        "Here is some useful information about the environment you are running in:\n"
        "<env>\n"
        "  Working directory: /work/app/pkg\n"
        "  Workspace root folder: /work/app\n"
        "  Is directory a git repo: yes\n"
        "  Platform: linux\n"
        "  Today's date: Thu Mar 05 2026\n"
        "</env>"
    )


@pytest.mark.parametrize("day", [date(2026, 1, 1), date(2024, 2, 29), date(2026, 12, 31), date(1999, 7, 4)])
def test_date_string_matches_strftime_in_the_c_locale(day: date) -> None:
    assert date_string(day) == day.strftime("%a %b %d %Y")


def test_environment_block_names_the_api_id_and_says_no_outside_git() -> None:
    project = ProjectInfo(Path("/tmp/x"), Path("/"), None, "darwin", "global")
    text = environment(ModelInfo(provider_id="openai", id="fast", api_id="gpt-5-nano"), project, TODAY)
    first = "You are powered by the model named gpt-5-nano. The exact model ID is openai/gpt-5-nano"
    assert text.splitlines()[0] == first
    assert "  Is directory a git repo: no" in text
    assert "  Platform: darwin" in text


# --- skills block and assembly --------------------------------------------------------------------------

SKILLS = [SkillInfo("beta", "B.", "/s/beta/SKILL.md", "b"), SkillInfo("alpha", "A.", BUILTIN_LOCATION, "a")]


def test_skills_block_has_the_two_intro_lines_then_the_xml_list() -> None:
    block = skills_block(agent(), SKILLS)
    assert block is not None
    lines = block.split("\n")
    assert lines[:2] == [
        "Skills provide specialized instructions and workflows for specific tasks.",
        "Use the skill tool to load a skill when a task matches its description.",
    ]
    assert lines[2] == "<available_skills>"
    assert lines.index("    <name>alpha</name>") < lines.index("    <name>beta</name>")


def test_skills_block_drops_denied_skills_and_is_omitted_when_the_skill_tool_is_off() -> None:
    block = skills_block(agent(rules=from_config({"skill": {"beta": "deny"}})), SKILLS)
    assert block is not None and "beta" not in block
    assert skills_block(agent(rules=from_config({"skill": "deny"})), SKILLS) is None
    # Only a final `*` deny switches the tool off; an allow after it keeps the block.
    assert skills_block(agent(rules=from_config({"skill": {"*": "deny", "alpha": "allow"}})), SKILLS) is not None


def test_skills_block_with_no_described_skill_says_none_are_available() -> None:
    assert skills_block(agent(), []) == f"{SKILLS_INTRO}\nNo skills are currently available."


PARTS = SystemPromptParts(
    environment="ENV",
    instructions=[InstructionBlock("/a/AGENTS.md", "rules a"), InstructionBlock("https://x/r", "rules x")],
    skills="SKILLS",
)


def test_assembly_joins_every_layer_with_one_newline_in_opencodes_order() -> None:
    result = assemble(agent(), model("gpt-5"), PARTS, user_system="Be terse.", json_schema=True)
    provider = read_prompt("provider/gpt.txt")
    assert result.text == "\n".join(
        [
            provider,
            "ENV",
            "Instructions from: /a/AGENTS.md\nrules a",
            "Instructions from: https://x/r\nrules x",
            "SKILLS",
            STRUCTURED_OUTPUT_SYSTEM_PROMPT,
            "Be terse.",
        ]
    )
    assert [(layer.kind, layer.source) for layer in result.layers] == [
        ("provider", "provider/gpt"),
        ("environment", "environment"),
        ("instructions", "/a/AGENTS.md"),
        ("instructions", "https://x/r"),
        ("skills", "skills"),
        ("structured_output", "structured_output"),
        ("user", "user"),
    ]
    assert sum(layer.chars for layer in result.layers) + len(result.layers) - 1 == len(result.text)


def test_an_agent_prompt_replaces_the_provider_prompt_and_empty_layers_are_dropped() -> None:
    parts = SystemPromptParts(environment="ENV", instructions=[], skills=None)
    result = assemble(agent("explore", prompt="EXPLORE"), model("claude-x"), parts, None, json_schema=False)
    assert result.text == "EXPLORE\nENV"
    assert [(layer.kind, layer.source, layer.chars) for layer in result.layers] == [
        ("agent", "agents/explore", 7),
        ("environment", "environment", 3),
    ]


def test_an_empty_agent_prompt_falls_back_to_the_provider_prompt() -> None:
    parts = SystemPromptParts(environment="ENV", instructions=[], skills=None)
    result = assemble(agent(prompt=""), model("kimi-k2"), parts, "", json_schema=False)
    assert result.layers[0].source == "provider/kimi"
    assert result.text == read_prompt("provider/kimi.txt") + "\nENV"


# --- the service against real files, compared with OpenCode's recorded requests -------------------------


def _fixture_rule(path: str) -> tuple[int, str]:
    """The URL fixture's rules: `/instructions/NAME` answers `Remote rule NAME`; anything else is a 404."""
    if path.startswith("/instructions/"):
        return 200, f"Remote rule {path.split('/')[-1].split('?')[0]}"
    return 404, "not found"


@pytest.fixture
def instruction_server() -> Iterator[LoopbackTextServer]:
    server = LoopbackTextServer(_fixture_rule, hangs=lambda path: path.startswith("/instructions/slow"))
    yield server
    server.close()


def captured_system_text(name: str) -> str:
    body = json.loads((FIXTURES / "captures" / f"opencode-prompt-{name}" / "001.json").read_text())
    if "system" in body:  # the Anthropic wire puts the system prompt beside the messages
        return "\n".join(block["text"] for block in body["system"])
    return str(body["messages"][0]["content"])


def capture_value(name: str, file: str) -> str:
    return (FIXTURES / "captures" / f"opencode-prompt-{name}" / file).read_text().strip()


BUILTIN_SKILL_RE = re.compile(r"  <skill>\n    <name>customize-[a-z]+</name>\n.*?  </skill>\n", re.DOTALL)


def after_provider_prompt(text: str) -> str:
    """Everything from the environment block on, with the product-specific built-in skill removed."""
    return BUILTIN_SKILL_RE.sub("", text[text.index("You are powered by the model named") :])


async def build_for_fixture(tmp_path: Path, name: str, api_id: str, port: int = 0) -> tuple[str, dict[str, str]]:
    work, home = tmp_path / "work", tmp_path / "home"
    shutil.copytree(FIXTURES / f"prompt-{name}", work)
    (work / ".git").mkdir()
    if (FIXTURES / f"home-prompt-{name}").exists():
        shutil.copytree(FIXTURES / f"home-prompt-{name}", home)
    config_file = work / "opencode.json"
    config_file.write_text(config_file.read_text().replace("__PORT__", str(port)))
    env = {"HOME": str(home)}
    paths, project = StrataPaths.from_env(env), ProjectService(work)
    config = ConfigService(paths, project, env)
    skills = SkillService(config, project, paths, env)
    build = await AgentService(config, paths, skills.dirs, project).get("build")
    assert build is not None
    service = SystemPromptService(project, InstructionService(config, project, paths, env), skills, fixed_clock())
    result = await service.build(SystemPromptRequest(build, model(api_id)))
    replacements = {
        capture_value(name, "workdir.txt"): str(work),
        capture_value(name, "home.txt"): str(home),
        capture_value(name, "port.txt"): str(port),
    }
    return result.text, replacements


def expected_from_capture(name: str, replacements: dict[str, str]) -> str:
    text = captured_system_text(name)
    for old, new in replacements.items():
        text = text.replace(old, new)
    return after_provider_prompt(text)


@pytest.mark.parametrize(("name", "api_id"), [("nested", "gpt-4o-mock"), ("global", "claude-sonnet-4-5-mock")])
@pytest.mark.anyio
async def test_everything_after_the_provider_prompt_matches_opencodes_recorded_request(
    tmp_path: Path, name: str, api_id: str
) -> None:
    text, replacements = await build_for_fixture(tmp_path, name, api_id)
    assert after_provider_prompt(text) == expected_from_capture(name, replacements)


@pytest.mark.slow
@pytest.mark.anyio
async def test_url_fixture_matches_opencodes_recorded_request(
    tmp_path: Path, instruction_server: LoopbackTextServer
) -> None:
    text, replacements = await build_for_fixture(tmp_path, "urls", "gemini-2.5-pro-mock", instruction_server.port)
    assert after_provider_prompt(text) == expected_from_capture("urls", replacements)


class Rendezvous:
    """Skills and instructions that each wait for the other to start: they only finish when run concurrently."""

    def __init__(self) -> None:
        self.skills_started, self.instructions_started = anyio.Event(), anyio.Event()

    async def all(self) -> list[SkillInfo]:
        self.skills_started.set()
        await self.instructions_started.wait()
        return SKILLS

    async def system(self, urls: UrlCache | None = None) -> InstructionSet:
        self.instructions_started.set()
        await self.skills_started.wait()
        return InstructionSet((InstructionBlock("/r/AGENTS.md", "rules"),))


@pytest.mark.anyio
async def test_build_gathers_skills_and_instructions_concurrently_and_reports_layers(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    both = Rendezvous()
    service = SystemPromptService(ProjectService(tmp_path), both, both, fixed_clock())  # type: ignore[arg-type]
    with anyio.fail_after(5):
        result = await service.build(SystemPromptRequest(agent(), model("gpt-5-codex")))
    assert [(layer.kind, layer.source) for layer in result.layers] == [
        ("provider", "provider/codex"),
        ("environment", "environment"),
        ("instructions", "/r/AGENTS.md"),
        ("skills", "skills"),
    ]
    assert f"  Working directory: {tmp_path}" in result.text
