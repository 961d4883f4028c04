"""Tool descriptions: the model-facing text of each tool, kept under `prompts/tools/` in Strata's own words.

A description may hold `${name}` placeholders (the bash tool states the OS, shell and limits); `render`
fills them and refuses to leave one unfilled, so a typo in a prompt file fails loudly instead of reaching
the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from strata_core.texts import read_prompt

_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")

__all__ = ["read_prompt", "render", "tool_description"]


def tool_description(name: str) -> str:
    """The description of a built-in tool, from `prompts/tools/<name>.txt`."""
    return read_prompt(f"tools/{name}.txt")


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill `${name}` placeholders; a placeholder without a value is an error, not silent text."""

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"prompt placeholder ${{{key}}} has no value")
        return values[key]

    return _PLACEHOLDER.sub(replace, template)
