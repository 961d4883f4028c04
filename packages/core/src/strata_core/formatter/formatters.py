"""Which formatter serves a file, and when a project turns it on: OpenCode's built-ins and the config's own.

A `FormatterSpec` names its extensions and decides, for a project, the command to run (`$FILE` is the file)
or None when it does not apply: its program is not installed, or the project shows no sign of using it
(ruff needs a ruff config or a ruff requirement; prettier and biome their package or config file). The
config's `formatter` entries replace a built-in of the same name, add new ones, or turn one off.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from attrs import frozen

from strata_core.config.code_tools import FormatterConfig

FILE = "$FILE"

Command = tuple[str, ...]
Enabler = Callable[[Path, Path, Mapping[str, str]], Command | None]
"""(project directory, worktree, environment) -> the command, or None."""


@frozen
class FormatterSpec:
    name: str
    extensions: tuple[str, ...]
    enabled: Enabler
    environment: Mapping[str, str] = {}

    def serves(self, path: Path) -> bool:
        return path.suffix in self.extensions or path.name in self.extensions


def _which(program: str, env: Mapping[str, str]) -> str | None:
    return shutil.which(program, path=env.get("PATH", os.defpath))


def find_up(name: str, directory: Path, worktree: Path) -> list[Path]:
    """`name` in `directory` and each parent up to `worktree`, nearest first."""
    found = []
    for folder in [directory, *directory.parents]:
        if (folder / name).is_file():
            found.append(folder / name)
        if folder == worktree or worktree not in folder.parents:
            break
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _on_path(program: str, *arguments: str) -> Enabler:
    """A formatter that is on whenever its program is installed (gofmt, rustfmt, ...)."""

    def enabled(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
        found = _which(program, env)
        return (found, *arguments) if found else None

    return enabled


def _ruff(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
    if _which("ruff", env) is None:
        return None
    command = ("ruff", "format", FILE)
    for config in ("pyproject.toml", "ruff.toml", ".ruff.toml"):
        found = find_up(config, directory, worktree)
        if found and (config != "pyproject.toml" or "[tool.ruff]" in _read(found[0])):
            return command
    for requirements in ("requirements.txt", "pyproject.toml", "Pipfile"):
        found = find_up(requirements, directory, worktree)
        if found and "ruff" in _read(found[0]):
            return command
    return None


def _uv(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
    """`uv format` for Python projects that ruff does not already format."""
    uv = _which("uv", env)
    if uv is None or _ruff(directory, worktree, env) is not None:
        return None
    return (uv, "format", "--", FILE)


def _npm_bin(program: str, directory: Path, worktree: Path, env: Mapping[str, str]) -> str | None:
    for folder in [directory, *directory.parents]:
        candidate = folder / "node_modules" / ".bin" / program
        if candidate.exists():
            return str(candidate)
        if folder == worktree or worktree not in folder.parents:
            break
    return _which(program, env)


def _depends_on(package: str, directory: Path, worktree: Path) -> bool:
    for manifest in find_up("package.json", directory, worktree):
        try:
            data = json.loads(_read(manifest) or "{}")
        except ValueError:
            continue
        if isinstance(data, dict) and any(
            isinstance(data.get(kind), dict) and package in data[kind] for kind in ("dependencies", "devDependencies")
        ):
            return True
    return False


def _prettier(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
    if not _depends_on("prettier", directory, worktree):
        return None
    found = _npm_bin("prettier", directory, worktree, env)
    return (found, "--write", FILE) if found else None


def _biome(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
    configs = ("biome.json", "biome.jsonc", ".biome.json", ".biome.jsonc")
    if not any(find_up(config, directory, worktree) for config in configs):
        return None
    found = _npm_bin("biome", directory, worktree, env)
    return (found, "format", "--write", FILE) if found else None


def _clang_format(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
    if not find_up(".clang-format", directory, worktree):
        return None
    found = _which("clang-format", env)
    return (found, "-i", FILE) if found else None


WEB: tuple[str, ...] = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".html", ".htm", ".css")
WEB += (".scss", ".sass", ".less", ".vue", ".svelte", ".json", ".jsonc", ".yaml", ".yml", ".toml", ".xml", ".md")
WEB += (".mdx", ".graphql", ".gql")
C_FAMILY = (".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ino")

BUILTIN_FORMATTERS: tuple[FormatterSpec, ...] = (
    FormatterSpec("gofmt", (".go",), _on_path("gofmt", "-w", FILE)),
    FormatterSpec("prettier", WEB, _prettier),
    FormatterSpec("biome", WEB, _biome),
    FormatterSpec("zig", (".zig", ".zon"), _on_path("zig", "fmt", FILE)),
    FormatterSpec("clang-format", C_FAMILY, _clang_format),
    FormatterSpec("ruff", (".py", ".pyi"), _ruff),
    FormatterSpec("uv", (".py", ".pyi"), _uv),
    FormatterSpec("shfmt", (".sh", ".bash"), _on_path("shfmt", "-w", FILE)),
    FormatterSpec("rustfmt", (".rs",), _on_path("rustfmt", FILE)),
    FormatterSpec("terraform", (".tf", ".tfvars"), _on_path("terraform", "fmt", FILE)),
    FormatterSpec("dart", (".dart",), _on_path("dart", "format", FILE)),
)


def _fixed(command: Command) -> Enabler:
    def enabled(directory: Path, worktree: Path, env: Mapping[str, str]) -> Command | None:
        return command

    return enabled


def configured_formatters(config: FormatterConfig) -> tuple[FormatterSpec, ...]:
    """The formatters `config` turns on: the built-ins in their order, then the config's new ones."""
    if not config.enabled:
        return ()
    specs = {spec.name: spec for spec in BUILTIN_FORMATTERS}
    for name, entry in config.formatters.items():
        builtin = specs.get(name)
        if entry.disabled:
            specs.pop(name, None)
            continue
        extensions = entry.extensions or (builtin.extensions if builtin else ())
        specs[name] = FormatterSpec(name, extensions, _fixed(entry.command), entry.environment)
    return tuple(specs.values())
