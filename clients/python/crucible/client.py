"""A client of the Crucible API on the standard library only (urllib). No implicit polling: read a review or a run
again yourself until its status has ended."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Union, cast

from .errors import CrucibleAPIError, CrucibleNetworkError
from . import types_gen as t

__all__ = ["Client"]

Token = Union[str, Callable[[], Optional[str]], None]

#: Retries after the first attempt, for GETs and keyed creates only (a POST without a key is never repeated).
RETRIES_MAX = 3
#: Backoff base and cap, seconds; each wait is drawn uniformly from [0, min(cap, base * 2**attempt)] (full jitter).
BACKOFF_BASE_SECONDS = 0.2
BACKOFF_CAP_SECONDS = 5.0
#: A long poll (``wait`` seconds, at most 30) may take its wait plus this margin before the socket gives up; any other
#: request gets the client's ``timeout_seconds``.
LONG_POLL_MARGIN_SECONDS = 15.0
#: Answers worth retrying: the service is busy or a gateway failed.
RETRY_STATUSES = (429, 502, 503, 504)
#: The API's limit on source_ids in one drafting request; the source list's largest page; pages read at most.
SOURCES_PER_DRAFT_MAX = 50
SOURCES_PAGE_LIMIT = 200
SOURCES_PAGES_MAX = 50


class Client:
    """``Client(base_url, token)``: token is an API token string, or a callable returning one per request."""

    def __init__(self, base_url: str, token: Token = None, *, timeout_seconds: float = 30.0, retries: int = RETRIES_MAX, user_agent: str = "crucible-python/0.1.0") -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self.timeout_seconds = timeout_seconds
        self.retries = max(0, min(retries, RETRIES_MAX))
        self.user_agent = user_agent

    # -- the transport -------------------------------------------------------------------------------------------

    def _bearer(self) -> Optional[str]:
        return self._token() if callable(self._token) else self._token

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
        raw: bool = False,
    ) -> Any:
        """One call. Returns the parsed JSON answer (bytes with raw=True); raises CrucibleAPIError or CrucibleNetworkError."""
        url = self.base_url + path
        if query:
            pairs = [(k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in query.items() if v is not None]
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        data = None
        headers = {"accept": "application/json", "user-agent": self.user_agent}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        if idempotency_key:
            headers["idempotency-key"] = idempotency_key
        retryable = method == "GET" or (method == "POST" and idempotency_key is not None)
        timeout = _timeout(query, self.timeout_seconds)
        attempt = 0
        while True:
            token = self._bearer()
            if token:
                headers["authorization"] = f"Bearer {token}"
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    payload = response.read()
                    if raw:
                        return payload
                    return json.loads(payload) if payload else None
            except urllib.error.HTTPError as error:
                payload = error.read()
                if retryable and error.code in RETRY_STATUSES and attempt < self.retries:
                    self._backoff(attempt, error.headers.get("retry-after"))
                    attempt += 1
                    continue
                raise _api_error(error.code, payload, error.headers.get("x-request-id")) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as error:
                if retryable and attempt < self.retries:
                    self._backoff(attempt, None)
                    attempt += 1
                    continue
                raise CrucibleNetworkError(method, url, error) from error

    @staticmethod
    def _backoff(attempt: int, retry_after: Optional[str]) -> None:
        wait = random.uniform(0, min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * (2**attempt)))
        if retry_after and retry_after.isdigit():
            wait = max(wait, min(float(retry_after), BACKOFF_CAP_SECONDS))
        time.sleep(wait)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.request("POST", path, body=body if body is not None else {}, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)

    # -- operations ----------------------------------------------------------------------------------------------
    # Creating calls take an Idempotency-Key: the caller's, or a fresh one per call (so this call's retries are safe).

    def me(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get("/v1/me"))

    def create_project(self, title: str, org_id: str, *, idempotency_key: Optional[str] = None) -> t.CreateProjectResponse:
        return cast(t.CreateProjectResponse, self.post("/v1/projects", {"title": title, "org_id": org_id}, idempotency_key=_key(idempotency_key)))

    def get_project(self, project_id: str) -> t.GetProjectResponse:
        return cast(t.GetProjectResponse, self.get(f"/v1/projects/{_q(project_id)}"))

    def list_projects(self, org_id: str, *, offset: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get("/v1/projects", query={"org_id": org_id, "offset": offset, "limit": limit}))

    def extract_text(self, text: Union[str, List[str]], *, project_id: Optional[str] = None, org_id: Optional[str] = None) -> Dict[str, Any]:
        """Pasted text, read and screened without AI: one string is one source, a list gives one source per item."""
        body: Dict[str, Any] = {"text": text if isinstance(text, str) else list(text)}
        if project_id:
            body["project_id"] = project_id
        if org_id:
            body["org_id"] = org_id
        return cast(Dict[str, Any], self.post("/v1/intakes/extract", body))

    def get_source_text(self, source_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/intake-sources/{_q(source_id)}/text"))

    def list_sources(self, org_id: str, *, project_id: Optional[str] = None, offset: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        """One page of an organization's (or one project's) intake sources, newest first; never their text."""
        return cast(Dict[str, Any], self.get("/v1/intake-sources", query={"org_id": org_id, "project_id": project_id, "offset": offset, "limit": limit}))

    def project_source_ids(self, project_id: str) -> List[str]:
        """The ids of the project's processed sources (readable and unflagged), oldest first."""
        org_id = self.get_project(project_id)["org_id"]
        processed: List[str] = []
        offset: Optional[int] = 0
        for _ in range(SOURCES_PAGES_MAX):
            if offset is None:
                break
            page = self.list_sources(org_id, project_id=project_id, offset=offset, limit=SOURCES_PAGE_LIMIT)
            processed.extend(source["id"] for source in page["data"] if source["status"] == "processed")
            offset = page.get("next_offset")
        processed.reverse()
        return processed

    def draft_intake(self, project_id: str, *, source_ids: Optional[List[str]] = None, byok_provider: Optional[str] = None, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """Drafts from the sources named, or without source_ids from every processed source of the project."""
        if source_ids is None:
            source_ids = self.project_source_ids(project_id)
            if not source_ids:
                raise ValueError(f"project {project_id} has no processed source: extract material for it first")
            if len(source_ids) > SOURCES_PER_DRAFT_MAX:
                raise ValueError(f"project {project_id} has {len(source_ids)} processed sources; one draft reads at most {SOURCES_PER_DRAFT_MAX}: pass source_ids")
        body: Dict[str, Any] = {"source_ids": source_ids}
        if byok_provider:
            body["byok_provider"] = byok_provider
        return cast(Dict[str, Any], self.post(f"/v1/projects/{_q(project_id)}/intakes/parse", body, idempotency_key=_key(idempotency_key)))

    def get_intake_draft(self, draft_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/intake-drafts/{_q(draft_id)}"))

    def cancel_intake_draft(self, draft_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.post(f"/v1/intake-drafts/{_q(draft_id)}/cancel"))

    def confirm_intake(self, project_id: str, spec: Mapping[str, Any], *, draft_id: Optional[str] = None, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        body: Dict[str, Any] = {"spec": spec}
        if draft_id:
            body["draft_id"] = draft_id
        return cast(Dict[str, Any], self.post(f"/v1/projects/{_q(project_id)}/intakes", body, idempotency_key=_key(idempotency_key)))

    def create_evaluation_plan(self, project_id: str, *, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.post(f"/v1/projects/{_q(project_id)}/evaluation-plans", {}, idempotency_key=_key(idempotency_key)))

    def approve_evaluation_plan(self, project_id: str, plan_id: str, scope: str) -> Dict[str, Any]:
        """Approves one scope explicitly (spec: no call implicitly approves processing)."""
        return cast(Dict[str, Any], self.post(f"/v1/projects/{_q(project_id)}/evaluation-plans/{_q(plan_id)}/approve", {"scope": scope}))

    def start_review(self, project_id: str, plan_id: str, *, byok_provider: Optional[str] = None, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        body: Dict[str, Any] = {"plan_id": plan_id}
        if byok_provider:
            body["byok_provider"] = byok_provider
        return cast(Dict[str, Any], self.post(f"/v1/projects/{_q(project_id)}/reviews", body, idempotency_key=_key(idempotency_key)))

    def get_review(self, review_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/reviews/{_q(review_id)}"))

    def download_review(self, review_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/reviews/{_q(review_id)}/download"))

    def validate_world(self, world: Mapping[str, Any]) -> t.ValidateWorldSpecResponse:
        return cast(t.ValidateWorldSpecResponse, self.post("/v1/world-specs/validate", world))

    def save_world(self, project_id: str, world: Mapping[str, Any]) -> t.SaveWorldResponse:
        return cast(t.SaveWorldResponse, self.post(f"/v1/projects/{_q(project_id)}/worlds", world))

    def estimate_run(self, world_revision_id: str, budget_limit_credits: int) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.post("/v1/runs/estimate", {"world_revision_id": world_revision_id, "budget_limit_credits": budget_limit_credits}))

    def create_run(self, world_revision_id: str, budget_limit_credits: int, *, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """Runs under the budget you choose (spec: no call chooses a budget)."""
        body = {"world_revision_id": world_revision_id, "budget_limit_credits": budget_limit_credits}
        return cast(Dict[str, Any], self.post("/v1/runs", body, idempotency_key=_key(idempotency_key)))

    def get_run(self, run_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/runs/{_q(run_id)}"))

    def cancel_run(self, run_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.post(f"/v1/runs/{_q(run_id)}/cancel"))

    def get_run_results(self, run_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/runs/{_q(run_id)}/results"))

    def list_run_events(self, run_id: str, *, offset: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/runs/{_q(run_id)}/events", query={"offset": offset, "limit": limit}))

    def compare_run(self, run_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.post("/v1/experiments/compare", {"run_id": run_id}))

    def export_run(self, run_id: str) -> Dict[str, Any]:
        """A signed link; download it with any HTTP client and without this client's bearer credential."""
        return cast(Dict[str, Any], self.post(f"/v1/runs/{_q(run_id)}/export"))

    # Authoring sessions (beta): the service drafts a world with you, a checkpoint at a time. Every step takes an
    # Idempotency-Key, which is the step's id: a retried step is one step.

    def create_authoring_session(
        self,
        project_id: str,
        *,
        intake_revision: Optional[int] = None,
        starting_world: Optional[Mapping[str, Any]] = None,
        byok_provider: Optional[str] = None,
        ai_limits: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Starts a session on the project's latest confirmed intake (or ``intake_revision``); it drafts, then waits."""
        body: Dict[str, Any] = {}
        if intake_revision is not None:
            body["intake_revision"] = intake_revision
        if starting_world is not None:
            body["starting_world"] = starting_world
        if byok_provider:
            body["byok_provider"] = byok_provider
        if ai_limits is not None:
            body["ai_limits"] = ai_limits
        return cast(Dict[str, Any], self.post(f"/v1/projects/{_q(project_id)}/authoring-sessions", body, idempotency_key=_key(idempotency_key)))

    def get_authoring_session(self, session_id: str, *, wait_seconds: Optional[int] = None) -> Dict[str, Any]:
        """The session and its latest checkpoint. ``wait_seconds`` (at most 30) asks the service to hold the answer until
        the session changes from its state when the request arrived (a long-poll you ask for; never implicit)."""
        return cast(Dict[str, Any], self.get(f"/v1/authoring-sessions/{_q(session_id)}", query={"wait": wait_seconds}))

    def list_authoring_sessions(self, project_id: str, *, offset: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/projects/{_q(project_id)}/authoring-sessions", query={"offset": offset, "limit": limit}))

    def answer_authoring_session(self, session_id: str, answers: List[Mapping[str, Any]], *, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """Answers open questions: ``[{"question_id": ..., "value": number, "note": optional}]``."""
        return cast(Dict[str, Any], self.post(f"/v1/authoring-sessions/{_q(session_id)}/answers", {"answers": list(answers)}, idempotency_key=_key(idempotency_key)))

    def revise_authoring_session(
        self,
        session_id: str,
        *,
        values: Optional[List[Mapping[str, Any]]] = None,
        instructions: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Sets slot values (``[{"slot": ..., "value": number, "reference": optional}]``) and/or asks for another AI
        iteration with ``instructions``."""
        body: Dict[str, Any] = {}
        if values is not None:
            body["values"] = list(values)
        if instructions is not None:
            body["instructions"] = instructions
        return cast(Dict[str, Any], self.post(f"/v1/authoring-sessions/{_q(session_id)}/revise", body, idempotency_key=_key(idempotency_key)))

    def approve_authoring_session(self, session_id: str, *, idempotency_key: Optional[str] = None) -> Dict[str, Any]:
        """Approves the latest checkpoint's world: it becomes a world revision of the project (``world_revision_id``)."""
        return cast(Dict[str, Any], self.post(f"/v1/authoring-sessions/{_q(session_id)}/approve", {}, idempotency_key=_key(idempotency_key)))

    def credits(self, org_id: str) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/orgs/{_q(org_id)}/credits"))

    def ledger(self, org_id: str, *, offset: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        return cast(Dict[str, Any], self.get(f"/v1/orgs/{_q(org_id)}/ledger", query={"offset": offset, "limit": limit}))


def _timeout(query: Optional[Mapping[str, Any]], timeout_seconds: float) -> float:
    """The socket timeout of one request: a long poll's wait plus the margin, else the client's timeout. It bounds each
    wait for the service (connecting, the answer, each read of the body), so a request the service accepts but never
    answers, or whose body stops, ends in CrucibleNetworkError: retried for GETs and keyed creates, never for other POSTs."""
    wait = query.get("wait") if query else None
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait > 0:
        return float(wait) + LONG_POLL_MARGIN_SECONDS
    return timeout_seconds


def _q(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _key(given: Optional[str]) -> str:
    return given if given else f"py-{uuid.uuid4()}"


def _api_error(status: int, payload: bytes, request_id: Optional[str]) -> CrucibleAPIError:
    try:
        body = json.loads(payload) if payload else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict) or not isinstance(body.get("code"), str):
        text = payload.decode("utf-8", "replace")[:500]
        return CrucibleAPIError(status, f"HTTP_{status}", text or f"HTTP {status}", {}, request_id or "")
    return CrucibleAPIError(status, body["code"], str(body.get("message", "")), body.get("details"), str(body.get("request_id", request_id or "")))
