"""One config source at a time: read a JSONC file, substitute `{env:}`/`{file:}`, check its shape, merge.

`service.py` decides which sources exist and in what order; this module turns each into a dict checked
against the typed blocks (`schema.py`) and knows how two of them combine. Every user-facing failure is a
`ConfigError` naming the file, the line and column, and the key path or the syntax, with what was expected.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from strata_core import redaction
from strata_core.config.errors import ConfigError, shown
from strata_core.config.flags import env_flag
from strata_core.config.locate import locate
from strata_core.config.merge import merge_deep
from strata_core.config.schema import AgentConfig, ConfigBlocks, PermissionConfig
from strata_core.config.structure import config_keys, structure_block
from strata_core.json_text import JsonNestingError, check_nesting, with_valid_strings
from strata_core.logging import get_logger
from strata_core.markdown import MarkdownFrontmatterError, parse_markdown

if TYPE_CHECKING:
    from strata_core.permission.outside_content import OutsideContent

log = get_logger(__name__)


# Top-level keys of OpenCode's config schema: the ones Strata types (`ConfigBlocks`) and those it keeps as
# written. Unknown keys are only warned about: a newer OpenCode key in a shared opencode.json must not stop
# Strata from starting (OpenCode itself rejects them).
UNTYPED_OPENCODE_KEYS = frozenset(
    {
        "$schema", "theme", "keybinds", "logLevel", "tui", "server", "watcher", "plugin", "autoupdate",
        "layout", "enterprise", "shell", "reference", "attribution",
    }
)  # fmt: skip
KNOWN_KEYS = config_keys(ConfigBlocks) | UNTYPED_OPENCODE_KEYS

_JSON5_POSITION = re.compile(r"^<string>:(\d+) (.*) at column (\d+)$", re.DOTALL)
_ENV_TOKEN = re.compile(r"\{env:([^}]+)\}")
_FILE_TOKEN = re.compile(r"\{file:([^}]+)\}")


def read_config_file(
    path: Path,
    env: Mapping[str, str],
    home: Path,
    outside: OutsideContent | None = None,
    seen_env: set[str] | None = None,
) -> dict[str, Any] | None:
    """A config file's checked content, or None when the file does not exist.

    With `outside`, a `{file:}` reference that resolves outside the project is read only if it allows it;
    `seen_env` collects the names its `{env:}` tokens read.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read config file: {error}", path=path) from error
    return parse_config_text(text, path, env=env, home=home, base_dir=path.parent, outside=outside, seen_env=seen_env)


def parse_config_text(
    text: str,
    source: Path,
    *,
    env: Mapping[str, str],
    home: Path,
    base_dir: Path,
    outside: OutsideContent | None = None,
    seen_env: set[str] | None = None,
) -> dict[str, Any]:
    """Substitute, parse JSONC and check one source; `source` names it in errors."""
    text = substitute(text, source, env=env, home=home, base_dir=base_dir, outside=outside, seen_env=seen_env)
    if not text.strip():
        return {}  # an empty file configures nothing; not worth refusing to start over
    data = parse_jsonc(text, source)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a JSON object at the top level, got {shown(data)}", path=source)
    checked = check_config(data, source, text, strict=env_flag(env, "CONFIG_STRICT"))
    redaction.remember_credentials_in(checked)  # literal keys in config are secrets in logs too
    return checked


def substitute(
    text: str,
    source: Path,
    *,
    env: Mapping[str, str],
    home: Path,
    base_dir: Path,
    outside: OutsideContent | None = None,
    seen_env: set[str] | None = None,
) -> str:
    """OpenCode's variables: `{env:VAR}` is inserted as is, `{file:path}` as JSON-escaped trimmed contents.

    `{file:}` tokens on `//` comment lines are left alone, so commenting a line out also stops its file read.
    `{env:}` values are inserted raw (OpenCode does too), which lets `"port": {env:PORT}` be a number.
    Every substituted value is remembered as a secret (`strata_core.redaction`): logs, crash files and
    `debug config` hide it wherever it appears. The names read are added to `seen_env`: shell commands must not
    see them (a key put in a header, say).
    """
    if seen_env is not None:
        seen_env.update(_ENV_TOKEN.findall(text))
    text = _ENV_TOKEN.sub(_env_value(env), text)
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if "{file:" not in line or line.lstrip().startswith("//"):
            continue
        replace = partial(_file_value, source=source, line=number, home=home, base_dir=base_dir, outside=outside)
        lines[number - 1] = _FILE_TOKEN.sub(replace, line)
    return "\n".join(lines)


def _env_value(env: Mapping[str, str]) -> Callable[[re.Match[str]], str]:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = env.get(name, "")
        redaction.remember(found, credential=redaction.is_credential_name(name))
        return found

    return value


def _file_value(
    match: re.Match[str], *, source: Path, line: int, home: Path, base_dir: Path, outside: OutsideContent | None
) -> str:
    raw = match.group(1)
    target = home / raw[2:] if raw.startswith("~/") else base_dir / raw
    if outside is not None and not outside.allows(target, f"{match.group(0)} in {source}:{line}"):
        return ""
    where = f'{source}:{line}: bad file reference "{match.group(0)}"'
    try:
        data = read_referenced_file(target, lambda problem: ConfigError(f"{where}: {problem}", path=source, line=line))
        content = data.decode("utf-8").strip()
    except FileNotFoundError as error:
        raise ConfigError(f"{where}: {target} does not exist", path=source, line=line) from error
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{where}: cannot read {target}: {error}", path=source, line=line) from error
    redaction.remember(content, credential=False)  # under a credential key it is remembered as one after parsing
    # Escaped as the inside of a JSON string, so the token can sit between quotes.
    return json.dumps(content, ensure_ascii=False)[1:-1]


FILE_REFERENCE_LIMIT = 10 * 1024 * 1024
"""Most a `{file:}` reference reads: more than any prompt or key, and a device like /dev/zero never ends."""


def read_referenced_file(target: Path, refuse: Callable[[str], Exception]) -> bytes:
    """The bytes of a `{file:}` target; `refuse(why)` is raised unless it is a regular file of at most
    `FILE_REFERENCE_LIMIT` bytes."""
    # Non-blocking, so that opening a FIFO returns at once (a blocking open waits for a writer, for ever).
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode  # of what was opened, so it cannot change between the check and the read
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise refuse(f"{target} is not a regular file (it is {_file_kind(mode)})")
    with os.fdopen(fd, "rb") as file:
        data = file.read(FILE_REFERENCE_LIMIT + 1)
    if len(data) > FILE_REFERENCE_LIMIT:
        raise refuse(f"{target} is larger than {FILE_REFERENCE_LIMIT // (1024 * 1024)} MB")
    return data


def _file_kind(mode: int) -> str:
    kinds = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a FIFO", stat.S_ISCHR: "a device", stat.S_ISBLK: "a device"}
    return next((kind for test, kind in kinds.items() if test(mode)), "a socket or other special file")


def parse_jsonc(text: str, source: Path) -> Any:
    """JSON with comments and trailing commas (any JSON5, in fact); errors carry the line and column."""
    try:
        check_nesting(text)  # both decoders recurse per level: a hostile file must not reach RecursionError
    except JsonNestingError as error:
        raise ConfigError(f"{source}: invalid JSON: {error}", path=source) from None
    try:
        # Most config files are plain JSON. The stdlib reads them ~1000x faster than the pure-Python json5
        # (4.8 ms for a 400-byte opencode.json, paid for every file on every start-up), and any text both
        # accept means the same to both (JSON5 is a superset of JSON), except that an escaped surrogate pair
        # becomes its one character, as in JavaScript, where json5 would keep two unencodable halves (joined
        # again by `with_valid_strings`, which makes a lone one U+FFFD, so an agent's prompt can be sent).
        return with_valid_strings(json.loads(text), text)
    except ValueError:
        pass
    import json5  # only for files that really use comments, trailing commas or other JSON5

    try:
        return with_valid_strings(json5.loads(text), text)
    except ValueError as error:
        found = _JSON5_POSITION.match(str(error))
        if found is None:
            raise ConfigError(f"{source}: invalid JSON: {_unpositioned(error)}", path=source) from error
        line, problem, column = int(found.group(1)), found.group(2), int(found.group(3))
        raise ConfigError(
            f"{source}:{line}:{column}: invalid JSON: {problem}; expected JSON with comments and trailing commas",
            path=source,
            line=line,
            column=column,
        ) from error


def _unpositioned(error: ValueError) -> str:
    """A decoder's complaint without a position, in the user's terms (Python's integer-digits guard otherwise
    advises calling `sys.set_int_max_str_digits`)."""
    if "integer string conversion" in str(error):
        return f"a number has more than {sys.get_int_max_str_digits():,} digits"
    return str(error)


# ---------------------------------------------------------------------------------------------------------
# Shape checks: each source is structured into the typed blocks as it is read (`config/schema.py` is the one
# definition of every block's shape), so an error names the file that set the bad value even though the
# blocks used are structured again from all sources merged.


def check_config(
    data: dict[str, Any], source: Path, text: str | None = None, *, strict: bool = False
) -> dict[str, Any]:
    """Check one source against the typed blocks and normalise its agent entries; warn about unknown keys
    (refuse them when `strict`). With the source's `text`, an error gives the bad value's line and column too."""
    for key in data:
        if key not in KNOWN_KEYS:
            unknown_key(key, source, text, strict=strict)
    structure_block(data, ConfigBlocks, source, text=text)
    for section in ("agent", "mode"):
        if data.get(section) is not None:
            data[section] = {
                name: normalize_agent(entry) for name, entry in data[section].items() if _named(name, section, source)
            }
    return data


def _named(name: str, section: str, source: Path) -> bool:
    """Whether an agent (or mode) entry has a name to be chosen by; one without is left out, with a warning."""
    if name.strip():
        return True
    says = f'{source}: {section} "{name}" has no name to choose it by; it is left out'
    log.notice("config.agent_unnamed", file=str(source), section=section, says=says)
    return False


SHOWN_KEY_LENGTH = 80
"""How much of an unknown key a warning quotes (a hostile or mangled file's key may be any length)."""


def unknown_key(key: str, source: Path, text: str | None, *, strict: bool) -> None:
    """One readable warning for a top-level key no OpenCode version defines, with the closest known key and
    where it is; with `strict` (`STRATA_CONFIG_STRICT=1`) a `ConfigError` instead, as OpenCode would refuse."""
    position = locate(text, [key]) if text is not None else None
    where = f"{source}:{position[0]}:{position[1]}" if position else str(source)
    close = closest_key(key) if len(key) <= SHOWN_KEY_LENGTH else None
    hint = f' (did you mean "{close}"?)' if close else ""
    shown = key if len(key) <= SHOWN_KEY_LENGTH else f"{key[:SHOWN_KEY_LENGTH]}... ({len(key):,} characters)"
    if strict:
        line, column = position or (None, None)
        raise ConfigError(
            f'{where}: unknown config key "{shown}"{hint}', path=source, line=line, column=column, key_path=key
        )
    says = f'{where}: unknown config key "{shown}"{hint}; Strata does not use it (OpenCode would refuse the file)'
    found: dict[str, object] = {"line": position[0], "column": position[1]} if position else {}
    found.update({"did_you_mean": close} if close else {})
    log.notice("config.unknown_key", key=key, file=str(source), **found, says=says)


def closest_key(key: str) -> str | None:
    """The known key `key` is most likely a typo of: the same letters swapped (`modle`), else difflib's best."""
    swapped = [known for known in sorted(KNOWN_KEYS) if sorted(known) == sorted(key)]
    close = swapped or difflib.get_close_matches(key, sorted(KNOWN_KEYS), n=1, cutoff=0.6)
    return close[0] if close else None


def check_permission(value: Any, source: Path, text: str | None = None) -> None:
    """A permission value (`$OPENCODE_PERMISSION`'s): an action or `{permission: action | {pattern: action}}`."""
    structure_block(value, PermissionConfig, source, at=("permission",), text=text)


# Agent entries (OpenCode's `P/config/agent.ts`): these keys are the agent's own; any other key is an
# option passed through to the model call.
AGENT_KEYS = config_keys(AgentConfig)


def normalize_agent(entry: Mapping[str, Any]) -> dict[str, Any]:
    """OpenCode's per-file agent transform, on an entry already checked: unknown keys -> options, legacy
    `tools` -> permission (dropped then, so normalising twice changes nothing), `steps ?? maxSteps`."""
    result = {key: value for key, value in entry.items() if key in AGENT_KEYS and key != "tools"}
    result["options"] = {**(entry.get("options") or {}), **{k: v for k, v in entry.items() if k not in AGENT_KEYS}}
    permission = tools_to_permission(entry.get("tools") or {})
    # An explicit permission overrides the legacy tools switches.
    result["permission"] = merge_deep(permission, permission_object(entry.get("permission")))
    steps = entry.get("steps") if entry.get("steps") is not None else entry.get("maxSteps")
    if steps is not None:
        result["steps"] = steps
    return result


def tools_to_permission(tools: Mapping[str, Any]) -> dict[str, str]:
    """Legacy `tools: {name: bool}` as permission: write, edit, patch and multiedit all switch `edit`."""
    permission: dict[str, str] = {}
    for tool, enabled in tools.items():
        key = "edit" if tool in ("write", "edit", "patch", "multiedit") else tool
        permission[key] = "allow" if enabled else "deny"
    return permission


def permission_object(value: Any) -> dict[str, Any]:
    """A permission value as an object: a bare action means `{"*": action}`."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {"*": value}
    return dict(value)


# ---------------------------------------------------------------------------------------------------------
# Markdown agents: `{agent,agents}/**/*.md` and the deprecated `{mode,modes}/*.md` of a config directory.


def read_markdown_agents(directory: Path) -> dict[str, dict[str, Any]]:
    """Agent entries from the directory's markdown agents; a nested file keeps its path, e.g. `team/reviewer`."""
    return _read_markdown_entries(directory, ("agent", "agents"), nested=True)


def read_markdown_modes(directory: Path) -> dict[str, dict[str, Any]]:
    """Entries from the deprecated `{mode,modes}/*.md` files; `config.py` turns them into primary agents."""
    return _read_markdown_entries(directory, ("mode", "modes"), nested=False)


def _read_markdown_entries(directory: Path, folders: tuple[str, ...], *, nested: bool) -> dict[str, dict[str, Any]]:
    if not directory.is_dir():
        return {}
    entries: dict[str, dict[str, Any]] = {}
    from strata_core.config.markdown_files import markdown_files  # only when there is a directory to look in
    from strata_core.config.yaml_values import json_values

    for relative in markdown_files(directory, folders, nested=nested):
        path = directory / relative
        try:
            document = parse_markdown(path)
        except MarkdownFrontmatterError as error:
            raise ConfigError(str(error), path=path, line=error.line) from error
        except (OSError, UnicodeDecodeError) as error:
            # One bad file must not stop every command: it is skipped, and the warning names it.
            log.notice("config.markdown_skipped", file=str(path), error=_unreadable(error))
            continue
        # The name is the path under agent(s)/ without `.md`; a `name` in the frontmatter wins, as in OpenCode.
        name = Path(relative).relative_to(Path(relative).parts[0]).with_suffix("").as_posix()
        entry = {"name": name, **document.data, "prompt": document.body}
        structure_block(entry, AgentConfig, path)  # first, so a date where text belongs is refused as a date
        entries[entry["name"]] = normalize_agent(json_values(entry, path))
    return entries


def _unreadable(error: OSError | UnicodeDecodeError) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text (byte {error.start} cannot be decoded)"
    return error.strerror or str(error)


# ---------------------------------------------------------------------------------------------------------
# Merging.


def merge_config(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """`merge_deep`, except `instructions` lists are concatenated and de-duplicated, first occurrence kept."""
    merged = merge_deep(base, override)
    if isinstance(base.get("instructions"), list) and isinstance(override.get("instructions"), list):
        merged["instructions"] = unique([*base["instructions"], *override["instructions"]])
    return merged


def unique(items: Iterable[Any]) -> list[Any]:
    """Items in first-seen order without repeats."""
    return list(dict.fromkeys(items))
