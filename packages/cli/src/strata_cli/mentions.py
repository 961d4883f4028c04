"""`@` mentions in a typed message: `@explore find greet` hands the message to that subagent, `@src/a.py` attaches
the file (a directory attaches its listing).

Names are found with OpenCode's pattern and resolved as its prompt does: an existing path first, then an agent.
A message that mentions a subagent becomes one subtask for it, run through the task tool without a model call
here first (reference 1.5); other mentions that name nothing stay plain text (`@someone`, `@types/node`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from strata_core.context import AgentInfo, mentioned_path, mentions
from strata_core.engine import FileInput, PromptPart, SubtaskInput, TextInput

DESCRIPTION_WORDS = 8


def mentionable_agents(agents: Sequence[AgentInfo]) -> list[AgentInfo]:
    """Agents an `@name` can start: the visible subagents (primary ones are switched to, with Tab or /agent)."""
    return [agent for agent in agents if agent.mode != "primary" and not agent.hidden]


def message_parts(
    text: str, agents: Mapping[str, AgentInfo], *, directory: Path, worktree: Path, home: Path
) -> list[PromptPart]:
    """The parts to send for `text`: a subtask for the first mentioned subagent, else the text and its files."""
    files: list[Path] = []
    for name in mentions(text):
        path = mentioned_path(name, directory, worktree, home)
        if path is not None:
            files.append(path)
            continue
        agent = agents.get(name)
        if agent is not None and agent in mentionable_agents([agent]):
            return [SubtaskInput(text, _description(text, name), agent.name)]
    return [TextInput(text), *(FileInput(path) for path in dict.fromkeys(files))]


def _description(text: str, agent: str) -> str:
    """A few words of the message, without the mention, as the task's short description."""
    words = [word for word in text.split() if word != f"@{agent}"]
    return " ".join(words[:DESCRIPTION_WORDS]) or agent
