"""Slash commands of the interactive mode: their names, help, and parsing (pure, so it is tested directly)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from attrs import frozen

from strata_cli.errors import CliError

# name -> (argument, what it does); the order is the order /help shows.
COMMANDS: dict[str, tuple[str, str]] = {
    "help": ("", "show this help"),
    "agent": ("[NAME]", "show the agents, or switch to one (Tab cycles the primary agents)"),
    "model": ("[PROVIDER/MODEL]", "show the usable models, or switch to one (Tab after /model completes)"),
    "variant": ("[NAME|none]", "show the model's variants (reasoning effort, thinking budget), or pick one"),
    "sessions": ("[ID]", "list this project's sessions, or continue one"),
    "history": ("[N]", "show the last N turns of this session (default 10)"),
    "new": ("", "start a new session"),
    "compact": ("", "summarise the session so far to free context"),
    "diff": ("", "show the files the last turn changed"),
    "undo": ("", "take back the last turn's file changes (again: the turn before)"),
    "redo": ("", "put back what /undo took back"),
    "export": ("[FILE]", "write the session as JSON (default: session-<id>.json)"),
    "mcp": ("", "show the MCP servers: connected, failed (and why) or disabled, and their tools"),
    "quit": ("", "leave (Ctrl-D does the same)"),
}
ALIASES = {"exit": "quit", "q": "quit", "?": "help", "models": "model", "agents": "agent", "session": "sessions"}


@frozen
class SlashCommand:
    name: str
    argument: str
    custom: bool = False
    """A custom command (`.opencode/command/NAME.md`, config `command`) rather than one of `COMMANDS`."""


class UnknownSlashCommandError(CliError, ValueError):
    def __init__(self, name: str, custom: Collection[str] = ()) -> None:
        known = ", ".join(f"/{command}" for command in [*COMMANDS, *sorted(custom)])
        super().__init__(f"Unknown command /{name}. Commands: {known}.")
        self.name = name


def parse(text: str, custom: Collection[str] = ()) -> SlashCommand | None:
    """The slash command in `text`, None when it is an ordinary message (a `//` escapes a leading slash).

    `custom` names the custom commands; a built-in command of the same name comes first, as in OpenCode's TUI."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    name = ALIASES.get(head.lower(), head.lower())
    if name in COMMANDS:
        return SlashCommand(name, rest.strip())
    if head in custom:
        return SlashCommand(head, rest.strip(), custom=True)
    raise UnknownSlashCommandError(head, custom)


def message_text(text: str) -> str:
    """The text to send for an ordinary message: `//etc` sends `/etc`."""
    stripped = text.strip()
    return stripped[1:] if stripped.startswith("//") else stripped


def help_text(custom: Mapping[str, str] | None = None) -> str:
    """The help: the built-in commands, the custom ones (name -> description) if any, and the keys."""
    shown = {f"/{name} {arg}".rstrip(): what for name, (arg, what) in COMMANDS.items()}
    own = {f"/{name} [ARGS]": what or "custom command" for name, what in sorted((custom or {}).items())}
    width = max(len(usage) for usage in [*shown, *own])
    lines = [f"  {usage.ljust(width)}  {what}" for usage, what in shown.items()]
    if own:
        lines += [
            "Prompt commands (built-in and yours):",
            *(f"  {usage.ljust(width)}  {what}" for usage, what in own.items()),
        ]
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
