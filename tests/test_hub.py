"""The course on a real JupyterHub (jupyter-settings/jupyterhub_config.py, tests/hub_harness.py says what the test
swaps): three students log in and get the course in their homes; one runs a lesson cell through the kernel API and
opens the playground through Voilà; no student reaches another's server or kernel; a second start keeps a changed
lesson; the idle culler stops idle servers; at the end every process the hub started is gone.

Skips with a reason without jupyterhub (the ``hub`` extra) or configurable-http-proxy (npm); fails instead when
BLEU_LAB_REQUIRE_HUB=1 (CI sets it).
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")

IDLE_TIMEOUT = 60  # the culler's timeout in this test (the shipped config: an hour)
STUDENTS = ("ada", "ben", "cy")


def touch(students: dict) -> None:
    """A request from each student to their own server (through the proxy: activity the hub records), if running."""
    for student in students.values():
        if student.user_model().get("servers", {}).get(""):
            student.server_api("GET", "api/contents/notebooks")


def test_a_course_hub_for_three_students(tmp_path: Path) -> None:
    hub_harness.require_hub()
    with hub_harness.running_hub(tmp_path / "hub", idle_timeout=IDLE_TIMEOUT) as hub:
        try:
            students = {name: hub_harness.Student(hub, name) for name in STUDENTS}
            ada, ben, cy = students.values()

            # Three students log in and start their servers at the same time.
            with ThreadPoolExecutor(len(students)) as pool:
                list(pool.map(lambda s: (s.login(), s.start()), students.values()))
                list(pool.map(lambda s: s.wait_ready(), students.values()))

            # Each server starts with the course in the student's home, and JupyterLab opens on lesson 0.
            for student in students.values():
                course = hub.homes / student.name / "bleu-lab-course"
                assert (course / "notebooks" / "00_start_here.ipynb").is_file()
                assert (course / "notebooks" / "playground.ipynb").is_file()
                assert (course / ".bleu-lab-course.json").is_file()
                listing = {item["name"] for item in student.contents("notebooks")["content"]}
                assert {"00_start_here.ipynb", "playground.ipynb", "compare_app.ipynb"} <= listing
                default = student.server_api("GET", "")
                assert default.status_code == 302
                assert default.headers["Location"].split("?")[0].endswith("/lab/tree/notebooks/00_start_here.ipynb")
            pids = {student.name: student.server_pid() for student in students.values()}
            assert all(pids.values()), pids

            # Ada runs lesson 0's "first taste" cell (and the cells before it) through the kernel API.
            kernel_id, status, printed, saved = ada.run_lesson("notebooks/00_start_here.ipynb", "all three agree")
            assert status == "ok", printed
            assert "all three agree: True" in printed
            assert printed.strip().endswith(saved.strip())  # the same lines the committed lesson shows

            touch(students)  # the steps below take a while on a busy machine: no server is idle before the end
            # ...and opens the playground and the comparison page through Voilà (the course's offline template).
            for app in ("playground", "compare_app"):
                page = ada.server_api("GET", f"voila/render/notebooks/{app}.ipynb")
                assert page.status_code == 200, page.text[-2000:]
                assert "application/vnd.jupyter.widget-view+json" in page.text
                assert "Traceback" not in page.text and "cdn.jsdelivr.net" not in page.text

            touch(students)
            # No student reaches another's server or kernel: with their token, or with their browser's cookies.
            for intruder, owner in ((ben, "ada"), (cy, "ada"), (ada, "ben")):
                for path in ("api/contents/notebooks", f"api/kernels/{kernel_id}", "api/kernels",
                             "voila/render/notebooks/playground.ipynb"):
                    response = intruder.server_api("GET", path, owner=owner)
                    assert response.status_code == 403, (intruder.name, owner, path, response.status_code)
                browser = intruder.session.get(f"{hub.url}/user/{owner}/lab", timeout=60)
                assert browser.status_code == 403, (intruder.name, owner, browser.url, browser.status_code)
                # the hub's API does not even tell a student that another's server exists (404), let alone stop it
                assert intruder.hub_api("DELETE", f"/users/{owner}/server").status_code in (403, 404)
                assert intruder.hub_api("GET", f"/users/{owner}").status_code in (403, 404)
            assert ada.user_model()["servers"][""]["ready"]  # the intruders' requests stopped nothing
            kernel_ws = hub.url.replace("http", "ws", 1) + f"/user/ada/api/kernels/{kernel_id}/channels"
            with pytest.raises(Exception, match="403"):
                hub_harness.run_async(hub_harness.execute(kernel_ws, ben.token, "print('not yours')", timeout=30))

            # A second start keeps the lesson Ada changed (and brings back the one she deleted).
            changed = ada.contents("notebooks/01_ngrams_and_clipping.ipynb")["content"]
            changed["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": "Ada's own note",
                                        "id": "ada-note"})
            ada.put_notebook("notebooks/01_ngrams_and_clipping.ipynb", changed)
            assert ada.server_api("DELETE", "api/contents/notebooks/02_modified_precision.ipynb").status_code == 204
            first_pid = ada.server_pid()
            ada.stop_server()
            ada.start()
            ada.wait_ready()
            pids["ada"] = ada.server_pid()
            assert pids["ada"] not in (None, first_pid)
            again = ada.contents("notebooks/01_ngrams_and_clipping.ipynb")["content"]
            assert again["cells"][0]["source"] == "Ada's own note"
            assert ada.contents("notebooks/02_modified_precision.ipynb")["type"] == "notebook"

            # The idle culler (the shipped service and role, a 60 s timeout here) stops the idle servers.
            deadline = time.monotonic() + IDLE_TIMEOUT + 120
            running = set(STUDENTS)
            while running and time.monotonic() < deadline:
                time.sleep(3)
                running = {s.name for s in students.values() if s.user_model().get("servers", {}).get("")}
            assert not running, f"not culled after {IDLE_TIMEOUT + 120} s: {running}\n{hub.log()[-3000:]}"
            for name in STUDENTS:  # stopped by the culler's own API request, not by anything else
                assert re.search(rf"DELETE /hub/api/users/{name}/server \(idle-culler@", hub.log()), name
            time.sleep(2)
            assert not [pid for pid in pids.values() if pid in {p.pid for p in hub.alive()}]
        except BaseException:
            print(hub.log()[-6000:])
            raise
    assert hub.process.returncode is not None
    assert hub.alive() == [], [(p.pid, p.cmdline()) for p in hub.alive()]
    assert len(hub.seen) >= 5  # hub, proxy, culler, servers, kernels were all seen (and are all gone)
