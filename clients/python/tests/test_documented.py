"""The Python client as its documents show it: the example in docs/clients.md (section "Python") and in
clients/python/README.md, run as written against the live service, and every method those pages name, with the
keyword arguments they give. Needs CRUCIBLE_URL, CRUCIBLE_TOKEN and CRUCIBLE_ORG, like test_client.py."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import pathlib
import re
import shutil
import tempfile
import unittest
from typing import Any, Dict, List

from crucible import Client

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[1]
REPO_DIR = PYTHON_DIR.parents[1]
CLIENTS_DOC = REPO_DIR / "docs" / "clients.md"
README = PYTHON_DIR / "README.md"
SAMPLE_WORLD = REPO_DIR / "samples" / "worlds" / "gp_triage_digital_front_door.json"


def python_section(doc: str) -> str:
    """The "## Python" section of docs/clients.md."""
    start = doc.index("\n## Python")
    end = doc.find("\n## ", start + 1)
    return doc[start:] if end < 0 else doc[start:end]


def python_blocks(text: str) -> List[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def named_calls(text: str) -> List[tuple]:
    """`name(args)` and `name` in backticks that name a Client method, with the keyword arguments shown."""
    calls = []
    for name, args in re.findall(r"`([a-z][a-z_]+)(?:\(([^)`]*)\))?`", text):
        if hasattr(Client, name):
            calls.append((name, re.findall(r"([a-z_]+)=", args or "")))
    return calls


class Documented(unittest.TestCase):
    def setUp(self) -> None:
        if not (os.environ.get("CRUCIBLE_URL") and os.environ.get("CRUCIBLE_TOKEN") and os.environ.get("CRUCIBLE_ORG")):
            raise RuntimeError("set CRUCIBLE_URL, CRUCIBLE_TOKEN and CRUCIBLE_ORG")
        self.work = tempfile.mkdtemp(prefix="crucible-python-doc-")
        shutil.copyfile(SAMPLE_WORLD, os.path.join(self.work, "world.json"))
        self.cwd = os.getcwd()
        os.chdir(self.work)

    def tearDown(self) -> None:
        os.chdir(self.cwd)
        shutil.rmtree(self.work, ignore_errors=True)

    def run_example(self, code: str) -> Dict[str, Any]:
        scope: Dict[str, Any] = {"__name__": "documented"}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "documented example", "exec"), scope)  # noqa: S102 - the page's own example
        scope["printed"] = printed.getvalue()
        return scope

    def test_the_example_in_docs_clients_md_runs_as_written(self) -> None:
        blocks = python_blocks(python_section(CLIENTS_DOC.read_text()))
        self.assertEqual(len(blocks), 1)
        done = self.run_example(blocks[0])
        self.assertTrue(done["project"]["id"].startswith("proj_"))
        draft = done["client"].get_intake_draft(done["draft"]["id"])
        self.assertEqual(draft["status"], "succeeded")
        # draft_intake without source_ids read the project's one processed source: the pasted text.
        self.assertEqual(draft["source_ids"], [done["extracted"]["sources"][0]["id"]])
        self.assertTrue(done["run"]["run_id"].startswith("run_"))
        self.assertEqual(done["run"]["budget_limit_credits"], 5000)
        self.assertRegex(done["printed"], r"^404 NOT_FOUND .+ req_[0-9a-z]+$")

    def test_the_readme_example_runs_as_written(self) -> None:
        blocks = python_blocks(README.read_text())
        self.assertEqual(len(blocks), 1)
        done = self.run_example(blocks[0])
        self.assertEqual([source["status"] for source in done["extracted"]["sources"]], ["processed", "processed"])
        self.assertEqual(done["client"].get_intake_draft(done["draft"]["id"])["status"], "succeeded")

    def test_every_method_the_pages_name_exists_with_the_keywords_shown(self) -> None:
        calls = named_calls(python_section(CLIENTS_DOC.read_text())) + named_calls(README.read_text())
        names = {name for name, _ in calls}
        self.assertTrue({"create_authoring_session", "get_authoring_session", "approve_authoring_session", "extract_text"} <= names, names)
        for name, keywords in calls:
            parameters = inspect.signature(getattr(Client, name)).parameters
            for keyword in keywords:
                self.assertIn(keyword, parameters, f"{name} has no parameter {keyword}")


if __name__ == "__main__":
    unittest.main()
