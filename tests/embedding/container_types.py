"""Checked by mypy, not run: what `CoreContainer`'s services are to a type checker (each its Protocol, never
`Any`). `test_container_typing.py` runs mypy on this module; the CI's mypy over tests checks it too."""

from __future__ import annotations

from typing import assert_type

from strata_core.container import CoreContainer, PromptContainer
from strata_core.context.agent import Agents
from strata_core.context.instruction import Instruction
from strata_core.context.skill import Skills
from strata_core.engine.loop_services import Loop
from strata_core.engine.processor import Processor
from strata_core.permission.approval import Approver
from strata_core.permission.flow import Permission
from strata_core.prompt.system import SystemPrompt
from strata_core.runtime import Runtime
from strata_core.session.session import Session


def core_services(c: CoreContainer) -> None:
    assert_type(c.loop(), Loop)
    assert_type(c.system_prompt(), SystemPrompt)
    assert_type(c.permissions(), Permission)
    assert_type(c.sessions(), Session)
    assert_type(c.processor(), Processor)
    assert_type(c.instructions(), Instruction)
    assert_type(c.skills(), Skills)
    assert_type(c.agents(), Agents)
    assert_type(c.approver(), Approver)


def prompt_services(c: PromptContainer) -> None:
    assert_type(c.system_prompt(), SystemPrompt)
    assert_type(c.instructions(), Instruction)


def runtime_services(rt: Runtime) -> None:
    assert_type(rt.loop, Loop)
    assert_type(rt.permissions, Permission)
    assert_type(rt.sessions, Session)
