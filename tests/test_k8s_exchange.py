"""Collect and return on Kubernetes through one shared volume (docs/instructor.md, *Collecting and returning on
Kubernetes: one shared volume*; issue 44): a folder laid out as that volume, every home owned by one uid and group 100
(the image's jovyan, uid 1000, group 100; here a uid of no account on this machine, as jovyan is on the grading
machine), graded lesson 3 copied into two homes as that uid (the pods' start hook), then the guide's three commands
run as root. And the guide's values for the volume pass the chart's schema merged with config.yaml.

No cluster is involved: what a pod's ``subPath`` mount hides (the other homes, ``grading/``) is Kubernetes' part."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.results import WRITTEN_POINTS

hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")

GUIDE = hub_harness.REPO / "docs" / "instructor.md"
LESSON = "03_brevity_penalty"
USERS_GID = 100  # docker-stacks' jovyan: uid 1000, group 100 (users)


def guide_section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text.split("#### Collecting and returning on Kubernetes: one shared volume", 1)[1].split("\n### ", 1)[0]


def exchange_values() -> str:
    return guide_section().split("<!-- z2jh exchange values -->\n```yaml\n", 1)[1].split("```", 1)[0]


def pod_commands() -> list[str]:
    """The commands the guide runs in the grading pod (after ``exec``), in order."""
    block = guide_section().split("# then, in the pod:\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_exchange_values_pass_the_charts_schema():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema checks the chart's schema (comes with jupyter)")
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the guide's values")
    from test_hub_config import merged, z2jh_values

    schema, defaults, ours = z2jh_values()
    extra = yaml.safe_load(exchange_values())
    assert extra == {"singleuser": {"storage": {"type": "static", "static": {
        "pvcName": "bleu-lab-exchange", "subPath": "home/{username}"}}}}
    values = merged(merged(defaults, ours), extra)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(values), key=str)
    assert errors == [], [e.message for e in errors]
    assert values["singleuser"]["storage"]["homeMountPath"] == "/home/jovyan"  # the home the guide names
    wrong = merged(values, {"singleuser": {"storage": {"type": "shared"}}})  # the schema would catch a wrong one
    assert list(jsonschema.Draft7Validator(schema).iter_errors(wrong))


def unused_uid() -> int:
    for uid in range(61000, 62000):
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    raise RuntimeError("no unused uid in 61000-61999")


def as_uid(uid: int, argv: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, user=uid, group=USERS_GID, extra_groups=[], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd="/")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def test_collect_grade_and_return_on_the_shared_volume_layout():
    if os.geteuid() != 0:
        pytest.skip("homes owned by another uid, and the commands run as root as in the grading pod: needs root")
    commands = pod_commands()
    assert [c.split()[0] for c in commands] == ["install", "bleu-lab", "bleu-lab", "bleu-lab"], commands
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-exchange-"))
    try:
        base.chmod(0o755)
        volume = base / "exchange"
        volume.mkdir(mode=0o755)
        hub_bin, hub_env = hub_harness.reachable_environment(base / "python")
        uid = unused_uid()
        released = base / "released.txt"
        released.write_text(f"{LESSON}\n")
        released.chmod(0o644)
        (volume / "home").mkdir(mode=0o755)
        for name in ("amy", "bob"):
            home = volume / "home" / name
            home.mkdir(mode=0o755)
            os.chown(home, uid, USERS_GID)
            env = {**hub_env, "HOME": str(home), "PATH": f"{hub_bin}:/usr/bin:/bin", "BLEU_LAB_GRADED": "1",
                   "BLEU_LAB_RELEASED": str(released)}
            as_uid(uid, [str(hub_bin / "bleu-lab"), "lessons", str(home / "bleu-lab-course")], env)
        notebooks = volume / "home" / "amy" / "bleu-lab-course" / "notebooks"
        assert sorted(p.name for p in notebooks.glob("*.ipynb")) == [
            f"{LESSON}.ipynb", "compare_app.ipynb", "playground.ipynb"]
        # Amy answers exercise 1 (as jovyan, in her pod); Bob hands in the lesson as he got it
        lesson = json.loads((notebooks / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
        [skeleton] = [c for c in lesson["cells"] if "def my_brevity_penalty(r, c):" in "".join(c["source"])
                      and "your code here" in "".join(c["source"])]
        skeleton["source"] = ("import math\n\n\ndef my_brevity_penalty(r, c):\n    if c == 0:\n        return 0.0\n"
                              "    if c > r:\n        return 1.0\n    return math.exp(1 - r / c)\n")
        (notebooks / f"{LESSON}.ipynb").write_text(json.dumps(lesson), encoding="utf-8")
        os.chown(notebooks / f"{LESSON}.ipynb", uid, USERS_GID)

        run_env = {**hub_harness.hub_environment(hub_bin, hub_env)}
        outputs = []
        for command in commands:  # the guide's, with the volume where the pod mounts it
            command = command.replace("/exchange", str(volume)).replace("bleu-lab ", f"{hub_bin}/bleu-lab ", 1)
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], capture_output=True, text=True,
                                  timeout=900, env=run_env, cwd=base)
            assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            outputs.append(done.stdout)
        assert f"collected 2 notebooks of {LESSON}" in outputs[1], outputs[1]
        exercises = lesson_gradings()[LESSON].exercises  # the automatic points and a point per written answer
        total = sum(e.points for e in exercises) + WRITTEN_POINTS * sum(1 for e in exercises if e.manual)
        for name, score in (("amy", 2), ("bob", 0)):
            page = volume / "home" / name / "bleu-lab-course" / "feedback" / f"{LESSON}.html"
            info = page.stat()
            assert (info.st_uid, info.st_gid) == (uid, USERS_GID), page
            assert f"Score: {score} / {total}" in page.read_text(encoding="utf-8")
        grading = volume / "grading"
        written = [grading, *grading.rglob("*")]
        assert {p.relative_to(grading).parts[0] for p in written[1:]} == {
            "submitted", f"{LESSON}-collected.csv", "marks.csv", "marks.csv.grades.json", "feedback"}
        assert [(str(p), oct(stat.S_IMODE(p.stat().st_mode)), p.stat().st_uid) for p in written
                if stat.S_IMODE(p.stat().st_mode) != (0o700 if p.is_dir() else 0o600) or p.stat().st_uid != 0] == []
        probe = ("import json, os, sys\nopened = []\nfor p in json.loads(sys.argv[1]):\n    try:\n"
                 "        os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read(1)\n        opened.append(p)\n"
                 "    except OSError:\n        pass\nprint(json.dumps(opened))\n")
        seen = as_uid(uid, ["/usr/bin/python3", "-I", "-c", probe, json.dumps([str(p) for p in written])], {})
        assert json.loads(seen.stdout) == []  # jovyan, were grading/ mounted in a pod, could read none of it
        marks = (grading / "marks.csv").read_text(encoding="utf-8")
        assert re.search(r"^amy,", marks, re.M) and re.search(r"^bob,", marks, re.M), marks
    finally:
        shutil.rmtree(base, ignore_errors=True)
