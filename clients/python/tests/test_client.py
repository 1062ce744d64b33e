"""The Python client against the live service: CRUCIBLE_URL, CRUCIBLE_TOKEN (scopes read, write, run) and CRUCIBLE_ORG.
Run: python3 -m unittest discover -s clients/python/tests -t clients/python"""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import threading
import time
import unittest
from typing import Any, Callable, Dict, List

from crucible import ENDED_STATUSES, JOB_FAILURE_CODES, Client, CrucibleAPIError, CrucibleNetworkError

URL = os.environ.get("CRUCIBLE_URL", "")
TOKEN = os.environ.get("CRUCIBLE_TOKEN", "")
ORG = os.environ.get("CRUCIBLE_ORG", "")
WORLDS = pathlib.Path(__file__).resolve().parents[3] / "samples" / "worlds"
#: How long a test waits for a draft, review or run to end (the machine may be busy).
WAIT_MAX_SECONDS = 240

PARAGRAPH = "\n".join(
    [
        "Problem: heart failure patients are readmitted to hospital within 30 days of discharge.",
        "Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.",
        "Intended users: heart failure nurses in community care.",
        "Stage: idea, nothing is built yet.",
    ]
)


def until_ended(kind: str, read: Callable[[], Dict[str, Any]]) -> Dict[str, Any]:
    """Explicit polling (the client never polls by itself) until the job of `kind` reaches one of its ended statuses."""
    deadline = time.monotonic() + WAIT_MAX_SECONDS
    while time.monotonic() < deadline:
        value = read()
        if value["status"] in ENDED_STATUSES[kind]:
            failure = value.get("failure")
            assert failure is None or failure["code"] in JOB_FAILURE_CODES, failure
            return value
        time.sleep(0.1)
    raise AssertionError(f"did not end within {WAIT_MAX_SECONDS} s")


class LiveService(unittest.TestCase):
    client: Client

    @classmethod
    def setUpClass(cls) -> None:
        if not (URL and TOKEN and ORG):
            raise RuntimeError("set CRUCIBLE_URL, CRUCIBLE_TOKEN and CRUCIBLE_ORG")
        cls.client = Client(URL, TOKEN)

    def test_paragraph_to_review(self) -> None:
        c = self.client
        project = c.create_project("Python walk", ORG, idempotency_key="py-walk-project")
        self.assertTrue(project["id"].startswith("proj_"))
        extracted = c.extract_text(PARAGRAPH, project_id=project["id"])
        self.assertEqual(extracted["sources"][0]["status"], "processed")
        parsed = c.draft_intake(project["id"], source_ids=[extracted["sources"][0]["id"]])
        draft = until_ended("intake_draft", lambda: c.get_intake_draft(parsed["id"]))
        self.assertEqual(draft["status"], "succeeded")
        confirmed = c.confirm_intake(project["id"], draft["spec"], draft_id=draft["id"])
        self.assertEqual(confirmed["revision"], 1)
        plan = c.create_evaluation_plan(project["id"])
        self.assertEqual([a["scope"] for a in plan["plan"]["approvals_needed"]], ["hosted_inference"])
        c.approve_evaluation_plan(project["id"], plan["id"], "hosted_inference")
        started = c.start_review(project["id"], plan["id"], idempotency_key="py-walk-review")
        review = until_ended("review", lambda: c.get_review(started["id"]))
        self.assertEqual(review["status"], "succeeded")
        self.assertEqual(len(review["review"]["dimensions"]), 13)
        downloaded = c.download_review(started["id"])
        self.assertEqual(downloaded["review"], review["review"])

    def test_sample_world_to_run_results(self) -> None:
        c = self.client
        world = json.loads((WORLDS / "community_diagnostic_pathway.json").read_text())
        self.assertTrue(c.validate_world(world)["valid"])
        project = c.create_project("Python runs", ORG)
        saved = c.save_world(project["id"], world)
        quote = c.estimate_run(saved["world_revision_id"], 1_000_000)
        self.assertTrue(quote["runnable"])
        created = c.create_run(saved["world_revision_id"], quote["credits_estimate"] * 2, idempotency_key="py-run")
        # The same key replays the same run.
        again = c.create_run(saved["world_revision_id"], quote["credits_estimate"] * 2, idempotency_key="py-run")
        self.assertEqual(again["run_id"], created["run_id"])
        run = until_ended("run", lambda: c.get_run(created["run_id"]))
        self.assertEqual(run["status"], "succeeded")
        results = c.get_run_results(created["run_id"])
        self.assertGreater(len(results["findings"]), 0)
        self.assertGreater(len(results["metrics"]), 0)
        self.assertIn("metrics", c.compare_run(created["run_id"]))

    def test_authoring_session_to_world_revision(self) -> None:
        c = self.client
        project = c.create_project("Python authoring", ORG)
        source = c.extract_text(PARAGRAPH, project_id=project["id"])["sources"][0]
        parsed = c.draft_intake(project["id"], source_ids=[source["id"]])
        draft = until_ended("intake_draft", lambda: c.get_intake_draft(parsed["id"]))
        c.confirm_intake(project["id"], draft["spec"], draft_id=draft["id"])
        created = c.create_authoring_session(project["id"], idempotency_key="py-session")
        self.assertEqual(created["status"], "drafting")
        self.assertEqual(c.create_authoring_session(project["id"], idempotency_key="py-session")["id"], created["id"])
        session = created
        deadline = time.monotonic() + WAIT_MAX_SECONDS
        while session["status"] == "drafting" and time.monotonic() < deadline:
            # an explicit long-poll: the service answers when the session changes (or after 25 s)
            session = c.get_authoring_session(created["id"], wait_seconds=25)
        self.assertEqual(session["status"], "waiting")
        self.assertEqual(session["accepts"], ["answers", "revise"])
        values = {"arrival_rate": 4, "mean_service": 20, "servers": 2, "treatment.mean_service": 12}
        answers = [{"question_id": q["id"], "value": values[q["slot"]]} for q in session["checkpoint"]["questions"]]
        answered = c.answer_authoring_session(created["id"], answers, idempotency_key="py-answers")
        self.assertEqual(answered["checkpoint"]["number"], 2)
        # the same key is the same step: no third checkpoint
        self.assertEqual(c.answer_authoring_session(created["id"], answers, idempotency_key="py-answers")["checkpoint"]["number"], 2)
        self.assertIn("approve", answered["accepts"])
        with self.assertRaises(CrucibleAPIError) as invalid:
            c.revise_authoring_session(created["id"], values=[{"slot": "servers"}])
        self.assertEqual((invalid.exception.status, invalid.exception.code), (422, "VALIDATION_FAILED"))
        approved = c.approve_authoring_session(created["id"], idempotency_key="py-approve")
        self.assertEqual(approved["status"], "approved")
        self.assertTrue(approved["world_revision_id"].startswith("wrev_"))
        listed = c.list_authoring_sessions(project["id"])
        self.assertEqual([s["id"] for s in listed["data"]], [created["id"]])

    def test_errors_carry_the_envelope(self) -> None:
        c = self.client
        with self.assertRaises(CrucibleAPIError) as missing:
            c.get_project("proj_doesnotexist")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "NOT_FOUND"))
        self.assertTrue(missing.exception.request_id)

        project = c.create_project("Python errors", ORG)
        source = c.extract_text("An idea about triage.", project_id=project["id"])["sources"][0]
        parsed = c.draft_intake(project["id"], source_ids=[source["id"]])
        draft = until_ended("intake_draft", lambda: c.get_intake_draft(parsed["id"]))
        with self.assertRaises(CrucibleAPIError) as conflict:
            c.cancel_intake_draft(draft["id"])
        self.assertEqual((conflict.exception.status, conflict.exception.code), (409, "CONFLICT"))
        self.assertIn("already ended", conflict.exception.message)
        self.assertTrue(conflict.exception.request_id)

        with self.assertRaises(CrucibleAPIError) as invalid:
            c.post("/v1/projects", {"org_id": ORG}, idempotency_key="py-invalid")
        self.assertEqual((invalid.exception.status, invalid.exception.code), (422, "VALIDATION_FAILED"))
        self.assertTrue(any(d.get("path") == "/title" for d in invalid.exception.details))

    def test_token_may_be_a_callable_read_per_request(self) -> None:
        calls: List[int] = []

        def token() -> str:
            calls.append(1)
            return TOKEN

        c = Client(URL, token)
        c.list_projects(ORG)
        c.credits(ORG)
        self.assertEqual(len(calls), 2)
        with self.assertRaises(CrucibleAPIError) as unauthenticated:
            Client(URL, "cru.tok_nope.nope").list_projects(ORG)
        self.assertEqual(unauthenticated.exception.status, 401)


class Flaky(http.server.BaseHTTPRequestHandler):
    """A local server that answers 503 until it has been asked `failures` times (per path)."""

    failures = 2
    seen: Dict[str, int] = {}

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        count = Flaky.seen.get(self.path, 0) + 1
        Flaky.seen[self.path] = count
        if count <= Flaky.failures:
            body = json.dumps({"code": "RATE_LIMITED", "message": "busy", "details": {}, "request_id": f"req_{count}"}).encode()
            self.send_response(503)
        else:
            body = json.dumps({"ok": True, "key": self.headers.get("idempotency-key")}).encode()
            self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = _answer
    do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


class Retries(unittest.TestCase):
    def setUp(self) -> None:
        Flaky.seen = {}
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.client = Client(f"http://127.0.0.1:{self.server.server_address[1]}", "t")

    def tearDown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def test_gets_and_keyed_creates_are_retried_with_a_bound(self) -> None:
        self.assertEqual(self.client.get("/a"), {"ok": True, "key": None})
        self.assertEqual(Flaky.seen["/a"], 3)
        self.assertEqual(self.client.post("/b", {}, idempotency_key="k1"), {"ok": True, "key": "k1"})
        self.assertEqual(Flaky.seen["/b"], 3)
        Flaky.failures = 10
        try:
            with self.assertRaises(CrucibleAPIError) as gave_up:
                self.client.get("/c")
            self.assertEqual(gave_up.exception.status, 503)
            self.assertEqual(Flaky.seen["/c"], 4)  # the first attempt and RETRIES_MAX retries
        finally:
            Flaky.failures = 2

    def test_unkeyed_posts_are_never_repeated(self) -> None:
        with self.assertRaises(CrucibleAPIError):
            self.client.post("/d", {})
        self.assertEqual(Flaky.seen["/d"], 1)

    def test_creates_send_an_idempotency_key_even_when_none_is_given(self) -> None:
        Flaky.failures = 0
        try:
            created = self.client.create_project("t", "org_x")
        finally:
            Flaky.failures = 2
        self.assertTrue(str(created["key"]).startswith("py-"))

    def test_no_answer_is_a_network_error(self) -> None:
        with self.assertRaises(CrucibleNetworkError):
            Client("http://127.0.0.1:9", "t", retries=0).get("/v1/models")


class Hanging(http.server.BaseHTTPRequestHandler):
    """A local server that accepts the first request to each path and never answers it; later ones are answered, a
    request carrying ``wait`` after 1.5 s (a long poll held by the service)."""

    seen: Dict[str, int] = {}
    release = threading.Event()

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        path = self.path.split("?")[0]
        count = Hanging.seen.get(path, 0) + 1
        Hanging.seen[path] = count
        if count == 1 and "wait=" not in self.path:
            Hanging.release.wait(30)
            return
        if "wait=" in self.path:
            time.sleep(1.5)
        body = json.dumps({"ok": True, "answered": count}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = _answer
    do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


class Timeouts(unittest.TestCase):
    def setUp(self) -> None:
        Hanging.seen = {}
        Hanging.release = threading.Event()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hanging)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.client = Client(f"http://127.0.0.1:{self.server.server_address[1]}", "t", timeout_seconds=1)

    def tearDown(self) -> None:
        Hanging.release.set()
        self.server.shutdown()
        self.server.server_close()

    def test_a_get_with_no_answer_is_given_up_after_the_timeout_and_sent_again(self) -> None:
        self.assertEqual(self.client.get("/e"), {"ok": True, "answered": 2})
        self.assertEqual(Hanging.seen["/e"], 2)

    def test_an_unkeyed_post_with_no_answer_is_not_sent_again(self) -> None:
        with self.assertRaises(CrucibleNetworkError):
            self.client.post("/f", {})
        self.assertEqual(Hanging.seen["/f"], 1)

    def test_a_long_poll_may_take_its_wait_beyond_the_timeout(self) -> None:
        self.assertEqual(self.client.get_authoring_session("sess_x", wait_seconds=2), {"ok": True, "answered": 1})
        self.assertEqual(Hanging.seen["/v1/authoring-sessions/sess_x"], 1)


if __name__ == "__main__":
    unittest.main()
