"""The markdown file `strata agent create` writes: YAML frontmatter (description, mode, tools) and the prompt."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from strata_cli.errors import CliError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def checked_name(name: str) -> str:
    """The name, if it can be a file name and an `@mention`; otherwise a `CliError` saying what would do."""
    name = name.strip()
    if not NAME.fullmatch(name):
        raise CliError(f"{name!r} cannot name an agent: use letters, digits, - and _ (e.g. code-reviewer).")
    return name


def allowed_tools(answer: str, known: Sequence[str]) -> list[str]:
    """The tools named in `answer` (comma- or space-separated, or `all`); an unknown name lists the known ones."""
    words = [word for word in re.split(r"[\s,]+", answer.strip().lower()) if word]
    if not words or words == ["all"]:
        return list(known)
    unknown = [word for word in words if word not in known]
    if unknown:
        raise CliError(f"Unknown tool(s): {', '.join(unknown)}. Choose from: {', '.join(known)}, or all.")
    return [tool for tool in known if tool in words]


def agent_markdown(description: str, mode: str, allowed: Sequence[str], known: Sequence[str], prompt: str) -> str:
    """The file's text; tools left out are switched off in the frontmatter (`tools: {name: false}`)."""
    # JSON strings are valid YAML scalars, so any description (colons, quotes) is written safely.
    lines = ["---", f"description: {json.dumps(description, ensure_ascii=False)}", f"mode: {mode}"]
    off = [tool for tool in known if tool not in allowed]
    if off:
        lines += ["tools:", *(f"  {tool}: false" for tool in off)]
    return "\n".join([*lines, "---", "", prompt, ""])
