"""`strata completion bash|zsh|fish`: the shell script that completes strata's commands and options."""

from __future__ import annotations

import click

COMPLETE_VARIABLE = "_STRATA_COMPLETE"


@click.command(short_help="Print the shell completion script.")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the completion script for SHELL. Load it from your shell's start-up file:

    \b
      bash: eval "$(strata completion bash)"          (in ~/.bashrc)
      zsh:  eval "$(strata completion zsh)"           (in ~/.zshrc)
      fish: strata completion fish | source           (in ~/.config/fish/config.fish)
    """
    from click.shell_completion import get_completion_class

    from strata_cli.main import cli

    completer = get_completion_class(shell)
    assert completer is not None  # click knows the three choices
    click.echo(completer(cli, {}, "strata", COMPLETE_VARIABLE).source())
