"""Provider credentials kept on disk: `$XDG_DATA_HOME/strata/auth.json`, in OpenCode's `Auth` shapes.

    store = CredentialStore.from_paths(StrataPaths.from_env())
    store.set("openrouter", {"type": "api", "key": "sk-..."})   # what the TUI's `/connect` sends
    store.api_key("openrouter")                                 # "sk-...", the catalogue's last key source

The file maps a provider id to one of OpenCode's `Auth` objects (`{"type": "api", "key"}`, `{"type": "oauth",
"refresh", "access", "expires"}`, `{"type": "wellknown", "key", "token"}`), as OpenCode's own `auth.json` does.
It is written whole to a temporary file (mode 0600) and renamed over the old one, so a reader never sees half
a file and no other user can read it. OpenCode's `$XDG_DATA_HOME/opencode/auth.json` is read too (never
written): a provider named in both takes Strata's entry. Only an `api` entry's key is ever sent to a
provider; `oauth` and `wellknown` entries are kept and returned as they came.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import define, field

from strata_core import redaction
from strata_core.config.errors import ConfigError
from strata_core.config.paths import StrataPaths
from strata_core.logging import get_logger

log = get_logger(__name__)

Credential = Mapping[str, Any]
"""One of OpenCode's `Auth` objects, as JSON: its `type` says which (`api`, `oauth`, `wellknown`)."""

CREDENTIAL_FIELDS: Mapping[str, tuple[str, ...]] = {
    "api": ("key",),
    "oauth": ("refresh", "access"),
    "wellknown": ("key", "token"),
}
"""Each `Auth` type and its fields that are secrets (all required strings)."""

_Signature = tuple[int, int, int] | None


class CredentialsError(ConfigError):
    """A credentials file Strata cannot read or write; the message names the file and what is wrong with it."""


@define
class CredentialStore:
    """Strata's `auth.json`, over OpenCode's (read only); re-read whenever either file changes on disk."""

    path: Path
    compat_path: Path | None = None
    _signature: tuple[_Signature, _Signature] | None = field(default=None, init=False)
    _entries: dict[str, Credential] = field(factory=dict, init=False)
    _writing: threading.Lock = field(factory=threading.Lock, init=False)
    """Held around each read-change-write, so two changes at once (the server runs them in worker threads) do
    not lose one another."""

    @classmethod
    def from_paths(cls, paths: StrataPaths) -> CredentialStore:
        return cls(paths.credentials, paths.compat_credentials)

    def all(self) -> dict[str, Credential]:
        """Every stored credential by provider id: OpenCode's, then Strata's over them."""
        signature = (_signature(self.compat_path), _signature(self.path))
        if signature != self._signature:
            compat = _read(self.compat_path) if self.compat_path is not None else {}
            self._entries = {**compat, **_read(self.path)}
            self._signature = signature
        return dict(self._entries)

    def get(self, provider_id: str) -> Credential | None:
        return self.all().get(provider_id)

    def api_key(self, provider_id: str) -> str | None:
        """The key of the provider's `api` credential; None for none, or for an `oauth`/`wellknown` one."""
        credential = self.get(provider_id)
        if credential is None or credential.get("type") != "api":
            return None
        key = credential["key"]
        assert isinstance(key, str)  # _read kept only well-formed entries
        return key

    def set(self, provider_id: str, credential: Credential) -> None:
        """Store `credential` (already checked against OpenCode's `Auth` union) as the provider's."""
        problem = _problem(credential)
        if problem is not None:
            raise CredentialsError(
                f"The credential for {provider_id!r} is not one of OpenCode's Auth shapes: {problem}."
            )
        _remember_secrets(credential)
        with self._writing:
            own = _read(self.path)
            own[provider_id] = dict(credential)
            _write(self.path, own)

    def remove(self, provider_id: str) -> bool:
        """Forget Strata's entry for the provider (OpenCode's file is left alone); whether there was one."""
        with self._writing:
            own = _read(self.path)
            if own.pop(provider_id, None) is None:
                return False
            _write(self.path, own)
            return True


def _signature(path: Path | None) -> _Signature:
    if path is None:
        return None
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CredentialsError(f"Cannot read the credentials file {path}: {error.strerror}.", path=path) from None
    return (status.st_mtime_ns, status.st_size, status.st_ino)


def _read(path: Path | None) -> dict[str, Credential]:
    """The well-formed entries of one file ({} when it does not exist); an entry of another shape is skipped,
    as OpenCode skips it, so one odd entry does not hide the others."""
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise CredentialsError(f"Cannot read the credentials file {path}: {reason}.", path=path) from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CredentialsError(
            f"The credentials file {path} is not valid JSON (line {error.lineno}, column {error.colno}): "
            "fix it or remove it, then store the keys again.",
            path=path,
            line=error.lineno,
            column=error.colno,
        ) from None
    if not isinstance(data, dict):
        raise CredentialsError(
            f"The credentials file {path} must hold a JSON object of provider ids, not {type(data).__name__}.",
            path=path,
        )
    entries: dict[str, Credential] = {}
    for provider_id, credential in data.items():
        problem = _problem(credential)
        if problem is not None:
            log.warning("credential_skipped", file=str(path), provider=provider_id, reason=problem)
            continue
        _remember_secrets(credential)
        entries[provider_id] = credential
    return entries


def _problem(credential: object) -> str | None:
    """What keeps `credential` from being one of OpenCode's `Auth` objects, or None."""
    if not isinstance(credential, dict):
        return "not a JSON object"
    kind = credential.get("type")
    secrets = CREDENTIAL_FIELDS.get(kind) if isinstance(kind, str) else None
    if secrets is None:
        return f"its type must be one of {', '.join(CREDENTIAL_FIELDS)}"
    missing = [name for name in secrets if not isinstance(credential.get(name), str)]
    if missing:
        return f"an {kind} credential needs the string field(s) {', '.join(missing)}"
    return None


def _remember_secrets(credential: Credential) -> None:
    """Stored keys are hidden wherever Strata shows or logs text, as config keys are."""
    for name in CREDENTIAL_FIELDS.get(str(credential.get("type")), ()):
        redaction.remember(credential.get(name))


def _write(path: Path, entries: Mapping[str, Credential]) -> None:
    """The whole file, replaced at once: a temporary file of mode 0600 beside it, renamed over it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor, temporary = tempfile.mkstemp(prefix=".auth-", suffix=".json", dir=path.parent)
        try:
            os.fchmod(descriptor, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(entries, file, indent=2)
                file.write("\n")
                file.flush()
                os.fsync(file.fileno())
            Path(temporary).replace(path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise CredentialsError(f"Cannot write the credentials file {path}: {error.strerror}.", path=path) from None
