"""Formatters run on files the agent wrote: the config's `formatter` key, OpenCode's built-ins.

- `contract`: the `Formatter` service the edit tools call, and `NoFormatter` (nothing configured).
- `formatters`: which built-in formatter serves which files, and when a project turns it on (ruff, uv,
  prettier, biome, gofmt, rustfmt, ...); the config's entries over them.
- `service.ProjectFormatter`: runs them, each bounded by `FORMAT_TIMEOUT`.
"""

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.formatter.contract import Formatter, NoFormatter
    from strata_core.formatter.service import ProjectFormatter

__all__ = ["Formatter", "NoFormatter", "ProjectFormatter"]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Formatter": "strata_core.formatter.contract",
        "NoFormatter": "strata_core.formatter.contract",
        "ProjectFormatter": "strata_core.formatter.service",
    },
)
