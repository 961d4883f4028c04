"""Slash commands of the interactive mode: their names, help, and parsing (pure, so it is tested directly)."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

# name -> (argument, what it does); the order is the order /help shows.
COMMANDS: dict[str, tuple[str, str]] = {
    "help": ("", "show this help"),
    "agent": ("[NAME]", "show the agents, or switch to one (Tab cycles the primary agents)"),
    "model": ("[PROVIDER/MODEL]", "show the models, or switch to one"),
    "variant": ("[NAME|none]", "show the model's variants (reasoning effort, thinking budget), or pick one"),
    "sessions": ("[ID]", "list this project's sessions, or continue one"),
    "new": ("", "start a new session"),
    "compact": ("", "summarise the session so far to free context"),
    "export": ("[FILE]", "write the session as JSON (default: session-<id>.json)"),
    "quit": ("", "leave (Ctrl-D does the same)"),
}
ALIASES = {"exit": "quit", "q": "quit", "?": "help", "models": "model", "agents": "agent", "session": "sessions"}


@frozen
class SlashCommand:
    name: str
    argument: str


class UnknownSlashCommand(ValueError):
    def __init__(self, name: str) -> None:
        known = ", ".join(f"/{command}" for command in COMMANDS)
        super().__init__(f"Unknown command /{name}. Commands: {known}.")
        self.name = name


def parse(text: str) -> SlashCommand | None:
    """The slash command in `text`, None when it is an ordinary message (a `//` escapes a leading slash)."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    name = ALIASES.get(head.lower(), head.lower())
    if name not in COMMANDS:
        raise UnknownSlashCommand(head)
    return SlashCommand(name, rest.strip())


def message_text(text: str) -> str:
    """The text to send for an ordinary message: `//etc` sends `/etc`."""
    stripped = text.strip()
    return stripped[1:] if stripped.startswith("//") else stripped


def help_text() -> str:
    width = max(len(f"/{name} {arg}".rstrip()) for name, (arg, _) in COMMANDS.items())
    lines = [f"  {f'/{name} {arg}'.rstrip().ljust(width)}  {what}" for name, (arg, what) in COMMANDS.items()]
    keys = [
        "  Enter sends; Alt-Enter (Esc then Enter) adds a line; Tab switches the primary agent;",
        "  Ctrl-C stops the running turn (or clears the input); Ctrl-D quits. Start with // to send a leading /.",
    ]
    return "\n".join(["Commands:", *lines, "Keys:", *keys])


def next_agent(primary: Sequence[str], current: str) -> str:
    """The primary agent after `current`, wrapping around (Tab)."""
    if not primary:
        return current
    if current not in primary:
        return primary[0]
    return primary[(primary.index(current) + 1) % len(primary)]
