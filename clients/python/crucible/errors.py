"""Errors of the Crucible client (spec: Errors)."""

from __future__ import annotations

from typing import Any


class CrucibleAPIError(Exception):
    """The service answered with an error: the HTTP status and the envelope's code, message, details, request_id."""

    def __init__(self, status: int, code: str, message: str, details: Any, request_id: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id

    def __repr__(self) -> str:
        return f"CrucibleAPIError(status={self.status!r}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"


class CrucibleNetworkError(Exception):
    """The request got no answer (refused, reset, timed out). Not an API error (spec: Errors)."""

    def __init__(self, method: str, url: str, cause: BaseException) -> None:
        super().__init__(f"{method} {url} failed before an answer: {cause}")
        self.method = method
        self.url = url
        self.cause = cause
