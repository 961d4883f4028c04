"""Tool descriptions: the model-facing text of each tool, kept under `prompts/tools/` in Strata's own words.

A description may hold `${name}` placeholders (the bash tool states the OS, shell and limits); `render`
fills them and refuses to leave one unfilled, so a typo in a prompt file fails loudly instead of reaching
the model.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import strata_core

_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


def _shared_loader() -> Callable[[str], str] | None:
    # `strata_core.prompt_files` is the project-wide loader; until it exists (or in a stripped-down embed)
    # the files are read straight from the package.
    try:
        module = importlib.import_module("strata_core.prompt_files")
    except ImportError:
        return None
    loader = getattr(module, "read_prompt", None)
    return loader if callable(loader) else None


@cache
def read_prompt(relative: str) -> str:
    """The text of `prompts/<relative>`, e.g. `tools/read.txt`."""
    loader = _shared_loader()
    if loader is not None:
        return str(loader(relative))
    return (Path(strata_core.__file__).parent / "prompts" / relative).read_text(encoding="utf-8")


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
