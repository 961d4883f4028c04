"""`strata --help` and `--version` stay fast: importing the entry point pulls in nothing heavy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("httpx", "rich", "prompt_toolkit", "dependency_injector", "anyio", "strata_server", "starlette", "uvicorn")


def _loaded_heavy_modules(statement: str) -> list[str]:
    code = (
        f"{statement}\n"
        "import json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY)!r})))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30, check=True)
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_importing_the_entry_point_loads_no_heavy_module() -> None:
    assert _loaded_heavy_modules("import strata_cli.main") == []


def test_building_the_help_loads_no_heavy_module() -> None:
    # Listing the commands imports every command module, so they must keep their heavy imports inside functions.
    statement = (
        "import click, strata_cli.main as m\n"
        "ctx = click.Context(m.cli, info_name='strata')\n"
        "m.cli.get_help(ctx)\n"
        "[m.cli.get_command(ctx, name).get_help(click.Context(m.cli.get_command(ctx, name))) "
        "for name in m.cli.list_commands(ctx)]"
    )
    assert _loaded_heavy_modules(statement) == []


def test_a_run_without_commands_or_mentions_loads_none_of_their_modules(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "from strata_cli.lean_start import heavy_imports\n"
        "with heavy_imports():\n"
        "    import strata_cli.app, strata_cli.run_session, strata_core.container\n"
        "watched = ('strata_core.context.command', 'strata_core.engine.command_prompt', 'strata_cli.mentions',\n"
        "           'strata_cli.completion', 'strata_cli.model_choices', 'strata_core.context.command_template')\n"
        "print(json.dumps([name for name in watched if name in sys.modules]))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"], "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30, check=True)
    assert json.loads(done.stdout) == []
