"""Configuration: config files found, read, substituted, merged and checked; where Strata keeps things.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.config.credentials import Credential, CredentialsError, CredentialStore
    from strata_core.config.merge import merge_deep
    from strata_core.config.paths import StrataPaths
    from strata_core.config.provider_schema import ModelConfig, ProviderConfig, ProviderOptions
    from strata_core.config.schema import ConfigBlocks, McpLocalConfig, McpRemoteConfig, McpServerConfig
    from strata_core.config.service import ConfigInfo

__all__ = [
    "ConfigBlocks",
    "ConfigInfo",
    "Credential",
    "CredentialStore",
    "CredentialsError",
    "McpLocalConfig",
    "McpRemoteConfig",
    "McpServerConfig",
    "ModelConfig",
    "ProviderConfig",
    "ProviderOptions",
    "StrataPaths",
    "merge_deep",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ConfigBlocks": "strata_core.config.schema",
        "ConfigInfo": "strata_core.config.service",
        "Credential": "strata_core.config.credentials",
        "CredentialStore": "strata_core.config.credentials",
        "CredentialsError": "strata_core.config.credentials",
        "McpLocalConfig": "strata_core.config.schema",
        "McpRemoteConfig": "strata_core.config.schema",
        "McpServerConfig": "strata_core.config.schema",
        "ModelConfig": "strata_core.config.provider_schema",
        "ProviderConfig": "strata_core.config.provider_schema",
        "ProviderOptions": "strata_core.config.provider_schema",
        "StrataPaths": "strata_core.config.paths",
        "merge_deep": "strata_core.config.merge",
    },
)
