"""Credentials inside base URLs (``?api-key=…``, ``user:pass@host``): split off, kept secret, redacted in text.

Some gateways (Azure-style proxies, self-hosted relays) take the key in the query string or as URL user info.
Such a URL must never be stored, shown or logged as entered: the credential goes to the keyring
(:meth:`app.secrets.SecretStore.set_url_credentials`), the clean URL is what settings, the database, reports and
the UI see, and the provider puts the credential back only on the wire. Texts that may hold such a URL (errors,
logs) go through :func:`app.logs.redact`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SECRET_PARAM = re.compile(
    r"^(api[-_]?key|key|token|access[-_]?token|auth|authorization|password|passwd|secret|client[-_]?secret|"
    r"sig|signature|code)$",
    re.IGNORECASE,
)
"""Query parameter names that carry a credential."""


@dataclass(frozen=True, slots=True)
class UrlCredentials:
    """What a base URL carried besides the address: user info and secret query parameters."""

    username: str = ""
    password: str = ""
    params: tuple[tuple[str, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.username or self.password or self.params)

    def secrets(self) -> list[str]:
        """Every secret value (to scrub from texts), longest first."""
        values = [self.password, *(v for _k, v in self.params)]
        if self.username and self.password:
            values.append(self.username)
        return sorted((v for v in values if len(v) >= 3), key=len, reverse=True)

    def to_json(self) -> str:
        """The form kept in the keyring."""
        return json.dumps({"username": self.username, "password": self.password, "params": list(self.params)})

    @classmethod
    def from_json(cls, text: str | None) -> UrlCredentials:
        """Parse :meth:`to_json` (anything unreadable is no credentials)."""
        try:
            data = json.loads(text or "{}")
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        params = tuple((str(k), str(v)) for k, v in data.get("params") or [] if isinstance(k, str))
        return cls(str(data.get("username") or ""), str(data.get("password") or ""), params)

    def merged(self, other: UrlCredentials) -> UrlCredentials:
        """These credentials with ``other``'s filled in where these have none."""
        names = {k for k, _v in self.params}
        return UrlCredentials(
            self.username or other.username,
            self.password or other.password,
            self.params + tuple((k, v) for k, v in other.params if k not in names),
        )


def split_url_credentials(url: str) -> tuple[str, UrlCredentials]:
    """The URL without user info and secret query parameters, and what was removed."""
    text = url.strip()
    parts = urlsplit(text)
    if not parts.scheme or not parts.netloc:
        return text, UrlCredentials()
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    query = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in query if not SECRET_PARAM.match(k)]
    secret = tuple((k, v) for k, v in query if SECRET_PARAM.match(k))
    creds = UrlCredentials(parts.username or "", parts.password or "", secret)
    if not creds:
        return text, creds
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(kept), parts.fragment)), creds
