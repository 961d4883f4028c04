"""The inline permission question of the interactive mode: one key answers it (o / a / r)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Console
from rich.markup import escape

from strata_cli.output import visible
from strata_cli.tool_lines import display_path
from strata_core.bus import PermissionReply, PermissionRequest

_KEYS: dict[str, PermissionReply] = {"o": "once", "y": "once", "a": "always", "r": "reject", "n": "reject"}


def describe_request(request: PermissionRequest, directory: Path) -> str:
    """`read .env`, `bash git push`: the permission and what it is for, paths shown relative to the project.

    On one line with every control character shown: what is approved must be what the person reads, and a
    command's escape sequences or line breaks could otherwise erase or push away the part that matters."""
    targets = ", ".join(display_path(pattern, directory) for pattern in request.patterns) or "*"
    return visible(f"{request.permission} {targets}", newlines=False)


async def ask_permission(console: Console, request: PermissionRequest, directory: Path) -> PermissionReply:
    """Ask until one of the answer keys is pressed; Ctrl-C or Ctrl-D count as reject (which ends the turn)."""
    always = visible(f"{request.permission} {', '.join(request.always) or '*'}", newlines=False)
    console.print(f"[bold yellow]Permission needed:[/bold yellow] {escape(describe_request(request, directory))}")
    asked = request.metadata.get("question")
    if isinstance(asked, str):  # a tool that asks the user something (plan_exit) says what
        console.print(f"  {escape(visible(asked, newlines=False))}")
    console.print(
        f"  [bold]o[/bold] once   [bold]a[/bold] always (this session: {escape(always)})   [bold]r[/bold] reject"
    )
    keys = KeyBindings()
    for key, reply in _KEYS.items():
        keys.add(key)(_answer_with(reply))
    keys.add("enter")(_ignore)  # no default answer: a stray Enter must not approve anything
    question: PromptSession[PermissionReply] = PromptSession(key_bindings=keys)
    try:
        reply = await question.prompt_async("allow? [o/a/r] ")
    except (KeyboardInterrupt, EOFError):
        reply = "reject"
    console.print(f"  → {reply}")
    return reply


def _answer_with(reply: PermissionReply) -> Callable[[KeyPressEvent], None]:
    def answer(event: KeyPressEvent) -> None:
        event.app.exit(result=reply)

    return answer


def _ignore(event: KeyPressEvent) -> None:
    return None
