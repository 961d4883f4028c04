"""Hiding credentials in what Strata shows or writes: by key, and by value wherever the value turns up.

    from strata_core import redaction
    redaction.remember(token)              # a value that must never be shown (config loading does this)
    redaction.redact_data(config_dict)     # a copy with credentials hidden, by key and by value
    redaction.redact_text(log_line)        # remembered values and URL userinfo hidden in free text

By key: a value under a key naming a credential (`key` and every name ending in it: `apiKey`, `accessKey`,
`privateKey`; `token`, `secret`, `password`, `credential(s)`, `auth`, `oauth`, `authorization`, `cookie`) is
hidden, and so is every value under a `headers`, `environment` or `env` key in what Strata shows of its config
(a header or an MCP server's environment is a credential as often as not). The keys of a `permission` block
are patterns, not names: its rules are hidden by value only.

By value: every value config loading substituted from `{env:...}` or `{file:...}`, and every value found under
a credential, header or environment key, is remembered for the life of the process; `redact_text` hides it
wherever it appears (a log line, a crash file), and so does `redact_data` in any string. Tool outputs hide
only the credentials among them (`credentials_only`): values under credential keys, headers and environment
variables named like one (`Authorization`, `X-Api-Key`, `GITHUB_TOKEN`) or holding a URL with a password,
and `{env:}` values of variables named like one (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`,
`*AUTH*`). So `X-Team: frontend`, `NODE_ENV: production` or a `{env:HOME}` path stay readable in what the
model reads, and an edit can quote them back. `user:password@` in a URL is hidden too. Values shorter than
`MIN_TEXT_LENGTH` are hidden only where they stand alone as a value, not inside text, where they would match
ordinary words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REDACTED = "<redacted>"
MIN_TEXT_LENGTH = 6

_CREDENTIAL_KEY = re.compile(r"keys?$|secret|token|passw(or)?d|credential|auth|cookie", re.IGNORECASE)
"""`key`, `apiKey`, `accessKey`, `privateKey`, `clientSecret`, `oauth`, ...: a provider's `options.key` is its API
key as often as `options.apiKey` is."""
_EVERY_VALUE_UNDER = frozenset({"headers", "environment", "env"})
_PATTERN_KEYED = frozenset({"permission"})
"""Keys under these are file or command patterns, not names: a rule for `*.key` or `*secret*` holds no secret
(its `deny` must not be hidden, nor remembered as a credential)."""
_AUTH_SCHEME = re.compile(r"(?:Bearer|Basic|Token|Bot)\s+(\S+)", re.IGNORECASE)
"""`Authorization: Bearer <token>`: the token alone is a credential too (an output may show it without it)."""
_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/\s:@]*(?::[^/\s@]*)?)@")

_remembered: set[str] = set()
_credentials: set[str] = set()
"""The remembered values known to be credentials (not merely substituted, like a `{env:HOME}` path)."""
_patterns: dict[bool, re.Pattern[str]] = {}


def remember(value: object, *, credential: bool = True) -> None:
    """Treat `value` (a string; anything else is ignored) as a secret from now on.

    `credential=False` marks a value that is hidden in what Strata shows about itself (config, logs, crash
    files) but not in tool outputs, where an ordinary substituted value (a path, a host) must stay readable.
    """
    if not isinstance(value, str) or not value.strip():
        return
    if value not in _remembered or (credential and value not in _credentials):
        _remembered.add(value)
        if credential:
            _credentials.add(value)
        _patterns.clear()


def forget_all() -> None:
    """Drop every remembered value (for tests and for an embedding application starting over)."""
    _remembered.clear()
    _credentials.clear()
    _patterns.clear()


def is_credential_name(name: str) -> bool:
    """An environment variable named like a credential (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`)."""
    return _CREDENTIAL_KEY.search(name) is not None or "KEY" in name.upper()


def is_credential_key(key: object) -> bool:
    return isinstance(key, str) and _CREDENTIAL_KEY.search(key) is not None


def _text_pattern(credentials_only: bool) -> re.Pattern[str]:
    pattern = _patterns.get(credentials_only)
    if pattern is None:
        values = _credentials if credentials_only else _remembered
        long_enough = sorted((v for v in values if len(v) >= MIN_TEXT_LENGTH), key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, long_enough))) if long_enough else re.compile(r"(?!x)x")
        _patterns[credentials_only] = pattern
    return pattern


def redact_text(text: str, *, userinfo: bool = True, credentials_only: bool = False) -> str:
    """`text` with every remembered secret (only the credentials among them with `credentials_only`) and,
    unless `userinfo` is off, every URL's `user:password@` replaced by `<redacted>`."""
    if _credentials if credentials_only else _remembered:
        text = _text_pattern(credentials_only).sub(REDACTED, text)
    if userinfo and "@" in text:
        text = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    return text


def redact_data(value: Any, *, hide_all: bool = False, by_key: bool = True) -> Any:
    """A copy of JSON-like data with credentials hidden, by key and by value (see the module docstring);
    `by_key=False` hides remembered values only."""
    if isinstance(value, Mapping):
        return {key: _redact_item(key, item, hide_all, by_key) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(item, hide_all=hide_all, by_key=by_key) for item in value]
    if isinstance(value, str):
        if (hide_all and value) or value in _remembered:
            return REDACTED
        return redact_text(value)
    return value


def _redact_item(key: object, item: Any, hide_all: bool, by_key: bool) -> Any:
    # Only strings are hidden: `maxTokens: 4096` names tokens but holds no secret.
    if by_key and _names_patterns(key):
        return redact_data(item, hide_all=hide_all, by_key=False)
    return redact_data(item, hide_all=hide_all or (by_key and _holds_credentials(key)), by_key=by_key)


def _holds_credentials(key: object) -> bool:
    return is_credential_key(key) or (isinstance(key, str) and key.lower() in _EVERY_VALUE_UNDER)


def _names_patterns(key: object) -> bool:
    return isinstance(key, str) and key in _PATTERN_KEYED


def remember_credentials_in(value: Any) -> None:
    """Remember every string that sits under a credential, header or environment key in `value`: as a
    credential under a credential key, and for a header or variable only when it is one by its name or content
    (the rest is hidden in what Strata shows of itself, and stays readable in tool outputs)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if is_credential_key(key):
                _remember_strings(item, credential=True)
            elif _holds_credentials(key):
                _remember_settings(item)
            elif not _names_patterns(key):
                remember_credentials_in(item)
    elif isinstance(value, list):
        for item in value:
            remember_credentials_in(item)


def _remember_settings(settings: Any) -> None:
    """Headers or environment variables: each a credential when named like one (`Authorization`, `X-Api-Key`,
    `NPM_TOKEN`) or holding a URL with a password (`DATABASE_URL`)."""
    if isinstance(settings, Mapping):
        for name, item in settings.items():
            _remember_strings(item, credential=isinstance(name, str) and is_credential_name(name))
    else:
        _remember_strings(settings, credential=False)


def _has_url_password(text: str) -> bool:
    """Whether `text` holds a URL with a password in its userinfo (`postgres://user:pw@host`)."""
    return any(found["userinfo"].partition(":")[2] for found in _USERINFO.finditer(text))


def _remember_strings(value: Any, *, credential: bool) -> None:
    if isinstance(value, str):
        credential = credential or _has_url_password(value)
        remember(value, credential=credential)
        scheme = _AUTH_SCHEME.fullmatch(value.strip()) if credential else None
        if scheme is not None:
            remember(scheme[1])
    elif isinstance(value, Mapping):
        for item in value.values():
            _remember_strings(item, credential=credential)
    elif isinstance(value, list):
        for item in value:
            _remember_strings(item, credential=credential)
