"""The config, typed: one frozen attrs class per block of OpenCode's config (`P/config/config.ts`).

Each field says how it is read (`setting(check)` for a value, `block(...)`/`blocks(...)` for a block or a map of them);
`config/structure.py` turns a merged (or a single file's) JSON object into a `ConfigBlocks` through the one
cattrs converter, and a wrong type or value becomes a `ConfigError` naming the key path and what was
expected. Keys Strata does not read are kept, not rejected: top-level ones in `ConfigBlocks.extra`, provider
ones in `ProviderConfig.extra`, and the raw merged JSON stays on `ConfigInfo.data`.

Provider blocks are in `config/provider_schema.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from attrs import frozen

from strata_core.config import checks as c
from strata_core.config.checks import block, blocks, setting
from strata_core.config.code_tools import FormatterConfig, LspConfig, read_formatter, read_lsp
from strata_core.config.errors import ConfigValueError
from strata_core.config.provider_schema import ProviderConfig
from strata_core.permission.rules import PermissionConfigError, Rule, parse_permission

AgentMode: TypeAlias = Literal["subagent", "primary", "all"]
AGENT_MODES: tuple[AgentMode, ...] = ("subagent", "primary", "all")
ShareMode: TypeAlias = Literal["manual", "auto", "disabled"]

MODEL_REF = 'a "provider/model" string'
TOOL_SWITCHES = "an object of tool names to true or false"


@frozen
class PermissionConfig:
    """`permission`: the rules in the user's key order (it decides precedence), patterns as written.

    Structured by `permission.rules.parse_permission`, the one definition of the permission shape; `~` and
    `$HOME` patterns are expanded when an agent's ruleset is built (`permission.rules.expand_home`).
    """

    rules: tuple[Rule, ...] = ()


def read_permission(value: Any) -> PermissionConfig:
    """The check of a `permission` value (an action, or an object of them)."""
    try:
        return PermissionConfig(parse_permission(value))
    except PermissionConfigError as error:
        raise ConfigValueError(error.expected, error.value, below=error.below) from error


@frozen
class AgentConfig:
    """One entry of `agent` (or the deprecated `mode`), after OpenCode's per-file transform
    (`config/files.py normalize_agent`: unknown keys into `options`, `tools` into `permission`,
    `steps ?? maxSteps`)."""

    name: str | None = setting(c.string())
    model: str | None = setting(c.model_ref(MODEL_REF))
    variant: str | None = setting(c.string())
    prompt: str | None = setting(c.string())
    description: str | None = setting(c.string())
    temperature: float | None = setting(c.number())
    top_p: float | None = setting(c.number())
    mode: AgentMode | None = setting(c.one_of(*AGENT_MODES))
    hidden: bool | None = setting(c.boolean())
    color: str | None = setting(c.string('a "#RRGGBB" colour or a theme colour name'))
    steps: int | None = setting(c.whole("a positive whole number", minimum=1))
    max_steps: int | None = setting(c.whole("a positive whole number", minimum=1), json="maxSteps")
    options: Mapping[str, Any] = setting(c.json_object(), factory=dict)
    permission: PermissionConfig = setting(read_permission, factory=PermissionConfig)
    disable: bool | None = setting(c.boolean())
    tools: Mapping[str, bool] = setting(c.bool_map(TOOL_SWITCHES), factory=dict)


@frozen
class CompactionConfig:
    """`compaction`: when and how a long session is summarised; None means OpenCode's default."""

    auto: bool | None = setting(c.boolean())
    prune: bool | None = setting(c.boolean())
    reserved: int | None = setting(c.whole("a whole number of tokens", minimum=0))
    tail_turns: int | None = setting(c.whole("a whole number of turns", minimum=0))
    preserve_recent_tokens: int | None = setting(c.whole("a whole number of tokens", minimum=0))


@frozen
class LimitsConfig:
    """`limits` (Strata's own): how far one turn may go before it is stopped; None means the default."""

    turn_steps: int | None = setting(c.whole("a positive whole number of steps", minimum=1))
    step_output_bytes: int | None = setting(c.whole("a positive whole number of bytes", minimum=1))
    tool_errors: int | None = setting(c.whole("a positive whole number of calls", minimum=1))


@frozen
class ToolOutputConfig:
    """`tool_output`: where a tool's output is cut; None means the default (2000 lines, 50 KB)."""

    max_lines: int | None = setting(c.whole("a positive whole number of lines", minimum=1))
    max_bytes: int | None = setting(c.whole("a positive whole number of bytes", minimum=1))


@frozen
class SkillsConfig:
    """`skills`: more places to find SKILL.md files."""

    paths: tuple[str, ...] = setting(c.strings("a list of paths"), factory=tuple)
    urls: tuple[str, ...] = setting(c.strings("a list of URLs"), factory=tuple)


@frozen
class ExperimentalConfig:
    """`experimental`: the switches Strata reads; the others stay in `extra`."""

    primary_tools: tuple[str, ...] = setting(c.strings("a list of tool names"), factory=tuple)
    continue_loop_on_deny: bool | None = setting(c.boolean())
    mcp_timeout: int | None = setting(c.whole("a positive whole number of milliseconds", minimum=1))
    extra: Mapping[str, Any] = setting(c.json_object(), factory=dict)


@frozen
class CommandConfig:
    """One entry of `command`: a prompt template run as `/name`."""

    template: str | None = setting(c.string())
    description: str | None = setting(c.string())
    agent: str | None = setting(c.string())
    model: str | None = setting(c.model_ref(MODEL_REF))
    subtask: bool | None = setting(c.boolean())


MCP_TIMEOUT = "a positive whole number of milliseconds"
"""`timeout` bounds a server's start (connect and tool listing; 30 s without one, as OpenCode) and each of its
requests (without one, `experimental.mcp_timeout`, else the MCP SDK's 60 s), as OpenCode 1.18.33 uses it."""


@frozen
class McpLocalConfig:
    """`mcp.<name>` with `"type": "local"`: a server Strata starts and talks to over stdio."""

    type: Literal["local"] = setting(c.one_of("local"), default="local")
    command: tuple[str, ...] = setting(c.strings("the command and its arguments, as a list of strings"), factory=tuple)
    cwd: str | None = setting(c.string("a directory (relative paths resolve from the project directory)"))
    environment: Mapping[str, str] = setting(c.string_map(), factory=dict)
    enabled: bool | None = setting(c.boolean())
    timeout: int | None = setting(c.whole(MCP_TIMEOUT, minimum=1))


@frozen
class McpRemoteConfig:
    """`mcp.<name>` with `"type": "remote"`: a server reached over HTTP."""

    type: Literal["remote"] = setting(c.one_of("remote"), default="remote")
    url: str = setting(c.string("a URL"), default="")
    headers: Mapping[str, str] = setting(c.string_map(), factory=dict)
    enabled: bool | None = setting(c.boolean())
    timeout: int | None = setting(c.whole(MCP_TIMEOUT, minimum=1))
    oauth: Mapping[str, Any] | Literal[False] | None = setting(
        c.either(c.exactly(False, "false"), c.json_object(), expected="an object, or false to turn OAuth detection off")
    )
    """OpenCode's `{clientId, clientSecret, scope}`, kept as written until Strata speaks OAuth."""


@frozen
class McpSwitch:
    """`mcp.<name>` as only `{"enabled": ...}`: turns a server configured in another file on or off."""

    enabled: bool = setting(c.boolean(), default=True)


McpServerConfig: TypeAlias = McpLocalConfig | McpRemoteConfig | McpSwitch
"""Tagged by `type` (`local` or `remote`), as OpenCode's parts are; untagged only as an `enabled` switch."""


SandboxMode: TypeAlias = Literal["read-only", "workspace-write", "danger-full-access"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("read-only", "workspace-write", "danger-full-access")


@frozen
class SandboxConfig:
    """`sandbox` (Strata's own block; OpenCode has none): how shell commands are contained (`strata_core.sandbox`).

    `mode` None means workspace-write where the mechanism works; `network` lets contained commands reach the
    network; `writable`/`readable` add paths (`~` allowed) to what a contained command may write or read;
    `env_allow` names variables (or `*` patterns) kept in a shell command's environment though they look secret.
    """

    mode: SandboxMode | None = setting(c.one_of(*SANDBOX_MODES))
    network: bool = setting(c.boolean(), default=False)
    writable: tuple[str, ...] = setting(c.strings("a list of paths"), factory=tuple)
    readable: tuple[str, ...] = setting(c.strings("a list of paths"), factory=tuple)
    env_allow: tuple[str, ...] = setting(c.strings("a list of variable names or * patterns"), factory=tuple)


@frozen
class ConfigBlocks:
    """Every block of a config, typed; what the core, the providers and the CLI read."""

    model: str | None = setting(c.model_ref(MODEL_REF))
    small_model: str | None = setting(c.model_ref(MODEL_REF))
    default_agent: str | None = setting(c.string("an agent name"))
    username: str | None = setting(c.string())
    share: ShareMode | None = setting(c.one_of("manual", "auto", "disabled"))
    autoshare: bool | None = setting(c.boolean())
    snapshot: bool | None = setting(c.boolean())
    instructions: tuple[str, ...] = setting(c.strings("a list of files, globs or URLs"), factory=tuple)
    skills: SkillsConfig = block(SkillsConfig)
    compaction: CompactionConfig = block(CompactionConfig)
    limits: LimitsConfig = block(LimitsConfig)
    tool_output: ToolOutputConfig = block(ToolOutputConfig)
    permission: PermissionConfig = setting(read_permission, factory=PermissionConfig)
    tools: Mapping[str, bool] = setting(c.bool_map(TOOL_SWITCHES), factory=dict)
    agent: Mapping[str, AgentConfig] = blocks(AgentConfig, "an object of agents")
    mode: Mapping[str, AgentConfig] = blocks(AgentConfig, "an object of agents")
    provider: Mapping[str, ProviderConfig] = blocks(ProviderConfig, "an object of providers")
    disabled_providers: tuple[str, ...] = setting(c.strings("a list of provider ids"), factory=tuple)
    enabled_providers: tuple[str, ...] | None = setting(c.strings("a list of provider ids"))
    experimental: ExperimentalConfig = block(ExperimentalConfig)
    mcp: Mapping[str, McpServerConfig] = blocks(McpServerConfig, "an object of MCP servers")
    command: Mapping[str, CommandConfig] = blocks(CommandConfig, "an object of commands")
    sandbox: SandboxConfig = block(SandboxConfig)
    lsp: LspConfig = setting(read_lsp, factory=LspConfig)
    formatter: FormatterConfig = setting(read_formatter, factory=FormatterConfig)
    extra: Mapping[str, Any] = setting(c.json_object(), factory=dict)
    """Every other top-level key, as written (`plugin`, `theme`, keys of newer OpenCodes...)."""
