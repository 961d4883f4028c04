"""The command services as the container builds them: each factory imports its module when first called, so a
run that uses no command loads none of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from strata_core.config.paths import StrataPaths
from strata_core.config.service import Config
from strata_core.context.agent import Agents
from strata_core.context.skill import Skills
from strata_core.project import Project

if TYPE_CHECKING:
    from strata_core.context.command import CommandService, CommandSource
    from strata_core.engine.command_prompt import CommandPrompts


def command_service(
    config: Config, project: Project, skills: Skills, sources: Sequence[CommandSource]
) -> CommandService:
    """The Commands service: config entries, command files, MCP prompts (`sources`) and skills."""
    from strata_core.context.command import CommandService

    return CommandService(config=config, project=project, skills=skills, sources=sources)


def command_prompts(commands: CommandService, agents: Agents, project: Project, paths: StrataPaths) -> CommandPrompts:
    """What turns `/name args` into a prompt."""
    from strata_core.engine.command_prompt import CommandPrompts

    return CommandPrompts(commands=commands, agents=agents, project=project, paths=paths)
