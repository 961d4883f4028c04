"""Tab completion in the interactive mode: `/` commands (built-in and custom), `/model` references, `@` mentions.

The candidates come from a `CompletionSource` the app fills once it knows them (commands and agents at start,
models when the catalogue is asked), so completing never waits for I/O; paths are listed from the project
directory as the person types.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from attrs import define, field
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from strata_cli.slash import ALIASES, COMMANDS

MAX_PATHS = 50


@define
class CompletionSource:
    """What can be completed: custom commands (name -> description), mentionable agents, and models."""

    directory: Path
    commands: Mapping[str, str] = field(factory=dict)
    agents: Mapping[str, str] = field(factory=dict)
    models: Callable[[], Iterable[str]] = field(default=lambda: ())


@define
class PromptCompleter(Completer):
    source: CompletionSource

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            yield from self._commands(text[1:])
        elif text.startswith("/model ") and " " not in text[len("/model ") :]:
            yield from self._models(text[len("/model ") :])
        else:
            word = text.split()[-1] if text.split() and not text[-1].isspace() else ""
            if word.startswith("@"):
                yield from self._mentions(word[1:])

    def _commands(self, typed: str) -> Iterator[Completion]:
        shown = {name: what for name, (_, what) in COMMANDS.items()}
        shown.update({name: what or "custom command" for name, what in self.source.commands.items()})
        for name, what in shown.items():
            if name.startswith(typed) and name not in ALIASES:
                yield Completion(f"/{name}", start_position=-len(typed) - 1, display_meta=what)

    def _models(self, typed: str) -> Iterator[Completion]:
        for ref in self.source.models():
            if typed in ref:
                yield Completion(ref, start_position=-len(typed))

    def _mentions(self, typed: str) -> Iterator[Completion]:
        for name, what in self.source.agents.items():
            if name.startswith(typed):
                yield Completion(f"@{name}", start_position=-len(typed) - 1, display_meta=what or "subagent")
        yield from self._paths(typed)

    def _paths(self, typed: str) -> Iterator[Completion]:
        folder, _, prefix = typed.rpartition("/")
        base = self.source.directory / folder if folder else self.source.directory
        try:
            entries = sorted(os.scandir(base), key=lambda entry: entry.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix.startswith(".")):
                continue
            name = f"{folder}/{entry.name}" if folder else entry.name
            name += "/" if entry.is_dir() else ""
            yield Completion(f"@{name}", start_position=-len(typed) - 1)
            shown += 1
            if shown == MAX_PATHS:
                return


def completes_here(text: str) -> bool:
    """Whether Tab completes after `text` (a `/` command, `/model`'s argument, an `@` mention)."""
    if text.startswith("/") and (" " not in text or text.startswith("/model ")):
        return True
    words = text.split()
    return bool(words) and not text[-1].isspace() and words[-1].startswith("@")
