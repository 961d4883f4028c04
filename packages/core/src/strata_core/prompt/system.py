"""The system prompt: which provider prompt a model gets, the environment block, the skills block, assembly.

Assembly follows OpenCode (`session/llm/request.ts`): ONE string, pieces joined with `\n`, empty pieces
dropped, in this order: the agent's prompt (or, without one, the provider prompt for the model), the
environment block, each instruction block, the skills block (unless the agent cannot use skills), the
structured-output line (json_schema turns only), the user's per-message system text.

`SystemPrompt` is the service a turn calls for its system text: one `build(SystemPromptRequest)` per step,
the same call `strata debug prompt` makes. `SystemPromptService` is Strata's: it gathers its pieces
concurrently, then assembles them; an embedder's replacement needs only that one method.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal, Protocol, TypeAlias

import anyio
from attrs import define, evolve, field, frozen

from strata_core.clock import Clock
from strata_core.context.agent import AgentInfo
from strata_core.context.instruction import Instruction, InstructionBlock, InstructionFailure, InstructionSet, UrlCache
from strata_core.context.skill import SkillInfo, Skills, available_skills, format_skills_xml
from strata_core.llm import ModelInfo
from strata_core.permission.rules import disabled
from strata_core.project import Project, ProjectInfo
from strata_core.prompt.reminders import STRUCTURED_OUTPUT_SYSTEM_PROMPT
from strata_core.texts import read_prompt

LayerKind: TypeAlias = Literal[
    "agent", "provider", "environment", "instructions", "mcp", "skills", "structured_output", "user"
]

SKILLS_INTRO = (
    "Skills provide specialized instructions and workflows for specific tasks.\n"
    "Use the skill tool to load a skill when a task matches its description."
)


# ---------------------------------------------------------------------------------------------------------
# Pure pieces


def provider_prompt_family(api_id: str) -> str:
    """The provider prompt for a model's API id; the first matching rule wins (OpenCode's `system.ts`)."""
    # Plain substring tests, case-sensitive for the first five, so any id containing `o1` or `o3` (even
    # `...turbo1`) gets beast, and so does `gpt-4o`: reproduced deliberately, the prompts were tuned this way.
    if "gpt-4" in api_id or "o1" in api_id or "o3" in api_id:
        return "beast"
    if "gpt" in api_id and "codex" in api_id:
        return "codex"
    if "gpt" in api_id:
        return "gpt"
    if "gemini-" in api_id:
        return "gemini"
    if "claude" in api_id:
        return "anthropic"
    if "trinity" in api_id.lower():
        return "trinity"
    if "kimi" in api_id.lower():
        return "kimi"
    return "default"


def provider_prompt_name(model: ModelInfo) -> str:
    """The prompt file for a model, as a name under prompts/ without extension (`provider/beast`)."""
    return f"provider/{provider_prompt_family(model.api_model_id)}"


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def date_string(day: date) -> str:
    """JavaScript's `Date.toDateString()` (`Thu Mar 05 2026`): `%a %b %d %Y`, but always in English.

    Spelled out rather than `strftime`, whose names follow the process locale once anything calls setlocale.
    """
    return f"{_WEEKDAYS[day.weekday()]} {_MONTHS[day.month - 1]} {day.day:02d} {day.year}"


def environment(model: ModelInfo, project: ProjectInfo, today: date) -> str:
    """The environment block, byte for byte OpenCode's (labels are an interface models were tuned on)."""
    return "\n".join(
        [
            f"You are powered by the model named {model.api_model_id}. "
            f"The exact model ID is {model.provider_id}/{model.api_model_id}",
            "Here is some useful information about the environment you are running in:",
            "<env>",
            f"  Working directory: {project.directory}",
            f"  Workspace root folder: {project.worktree}",
            f"  Is directory a git repo: {'yes' if project.vcs == 'git' else 'no'}",
            f"  Platform: {project.platform}",
            f"  Today's date: {date_string(today)}",
            "</env>",
        ]
    )


def skills_enabled(agent: AgentInfo) -> bool:
    """False when the agent's rules switch the skill tool off entirely (a final `skill: {"*": deny}`)."""
    return "skill" not in disabled(["skill"], agent.permission)


def skills_block(agent: AgentInfo, skills: Sequence[SkillInfo]) -> str | None:
    """The skills layer for an agent, or None when the agent cannot use skills at all."""
    if not skills_enabled(agent):
        return None
    return f"{SKILLS_INTRO}\n{format_skills_xml(available_skills(skills, agent.permission))}"


# ---------------------------------------------------------------------------------------------------------
# Assembly


@frozen
class PromptLayer:
    """One piece of the system prompt, for `debug` output and tests: what it is, where it came from, its size."""

    kind: LayerKind
    source: str
    """A prompt name (`provider/beast`, `agents/explore`), a file path or URL, or the kind itself."""
    chars: int


@frozen
class AssembledSystemPrompt:
    text: str
    layers: list[PromptLayer]
    failures: tuple[InstructionFailure, ...] = ()
    """The instruction sources that gave nothing, and why (they are not in `text`)."""


@frozen
class SystemPromptParts:
    """The independently gathered pieces, which `assemble` puts in order."""

    environment: str
    instructions: list[InstructionBlock]
    skills: str | None
    mcp: str | None = None
    """The connected MCP servers' own instructions (`<mcp_instructions>`), between instructions and skills."""


def assemble(
    agent: AgentInfo, model: ModelInfo, parts: SystemPromptParts, user_system: str | None, json_schema: bool
) -> AssembledSystemPrompt:
    """Join the layers in OpenCode's order into one string, dropping empty ones."""
    pieces: list[tuple[LayerKind, str, str]] = []
    if agent.prompt:
        pieces.append(("agent", f"agents/{agent.name}", agent.prompt))
    else:
        name = provider_prompt_name(model)
        pieces.append(("provider", name, read_prompt(f"{name}.txt")))
    pieces.append(("environment", "environment", parts.environment))
    pieces += [("instructions", block.source, block.text) for block in parts.instructions]
    if parts.mcp is not None:
        pieces.append(("mcp", "mcp", parts.mcp))
    if parts.skills is not None:
        pieces.append(("skills", "skills", parts.skills))
    if json_schema:
        pieces.append(("structured_output", "structured_output", STRUCTURED_OUTPUT_SYSTEM_PROMPT))
    if user_system:
        pieces.append(("user", "user", user_system))
    kept = [(kind, source, text) for kind, source, text in pieces if text]
    return AssembledSystemPrompt(
        text="\n".join(text for _, _, text in kept),
        layers=[PromptLayer(kind, source, len(text)) for kind, source, text in kept],
    )


@frozen
class SystemPromptRequest:
    """What one system prompt is built from: the same value for a turn's step and for `strata debug prompt`."""

    agent: AgentInfo
    model: ModelInfo
    user_system: str | None = None
    """The user's per-message system text (appended last)."""
    json_schema: bool = False
    """A structured-output turn: the StructuredOutput line is added."""
    mcp: str | None = None
    """The connected MCP servers' own instructions (`<mcp_instructions>`), or None."""
    urls: UrlCache | None = None
    """The turn's instruction URL answers: a URL is fetched once per turn, not at every step."""


class SystemPrompt(Protocol):
    """The system prompt service: the one method a turn calls, and an embedder replaces, for its system text."""

    async def build(self, request: SystemPromptRequest) -> AssembledSystemPrompt: ...


@define
class _Gathered:
    environment: str = ""
    instructions: InstructionSet = field(factory=InstructionSet)
    skills: str | None = None


@define
class SystemPromptService:
    """Default `SystemPrompt`: gathers skills, environment and instructions concurrently, then assembles."""

    project: Project
    instructions: Instruction
    skills: Skills
    clock: Clock
    """Only its `today()` is read: the environment block's date."""

    async def build(self, request: SystemPromptRequest) -> AssembledSystemPrompt:
        """The whole system prompt for one model call of a normal turn."""
        agent, model = request.agent, request.model
        found = _Gathered()

        async def run_skills() -> None:
            if skills_enabled(agent):
                found.skills = skills_block(agent, await self.skills.all())

        async def run_environment() -> None:
            found.environment = environment(model, await self.project.info(), self.clock.today())

        async def run_instructions() -> None:
            found.instructions = await self.instructions.system(request.urls)

        async with anyio.create_task_group() as group:
            group.start_soon(run_skills)
            group.start_soon(run_environment)
            group.start_soon(run_instructions)
        instructions = found.instructions
        parts = SystemPromptParts(found.environment, list(instructions.blocks), found.skills, request.mcp)
        assembled = assemble(agent, model, parts, request.user_system, request.json_schema)
        return evolve(assembled, failures=instructions.failures)
