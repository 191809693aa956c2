"""The hub files an admin is given (jupyter-settings/): the z2jh config.yaml passes the chart's own schema (from
../shared/peers/z2jh, skipped with a reason where absent); the Dockerfile's install steps work, run one by one in a
fresh venv (no container engine here, so the image itself is not built); the one-server config is what the guide
says. The hub itself is started in tests/test_hub.py."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SETTINGS = REPO / "jupyter-settings"
Z2JH_PEER = REPO.parent / "shared" / "peers" / "z2jh"


def merged(defaults: dict, overrides: dict) -> dict:
    """Helm's merge of a values file over the chart's values.yaml: maps merge key by key, anything else replaces."""
    result = copy.deepcopy(defaults)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def z2jh_values() -> tuple[dict, dict, dict]:
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the chart's schema (it comes with jupyter_events)")
    if not (Z2JH_PEER / "values.schema.yaml").is_file():
        pytest.skip(f"the z2jh chart's schema is not at {Z2JH_PEER} (../shared/peers/z2jh)")
    schema = yaml.safe_load((Z2JH_PEER / "values.schema.yaml").read_text(encoding="utf-8"))
    defaults = yaml.safe_load((Z2JH_PEER / "values.yaml").read_text(encoding="utf-8"))
    ours = yaml.safe_load((SETTINGS / "z2jh" / "config.yaml").read_text(encoding="utf-8"))
    return schema, defaults, ours


def test_the_z2jh_config_passes_the_charts_schema():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema checks the chart's schema (comes with jupyter)")
    schema, defaults, ours = z2jh_values()
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(merged(defaults, ours)), key=str)
    assert not errors, "\n".join(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def test_the_charts_schema_catches_a_wrong_key():
    """The check above can fail: a misspelt key, or a limit of the wrong type, is refused by the same schema."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema checks the chart's schema (comes with jupyter)")
    schema, defaults, ours = z2jh_values()
    validator = jsonschema.Draft7Validator(schema)
    misspelt = merged(ours, {"singleuser": {"lifecycleHook": {"postStart": {}}}})
    assert any("lifecycleHook" in e.message for e in validator.iter_errors(merged(defaults, misspelt)))
    wrong_type = merged(ours, {"singleuser": {"cpu": {"limit": "one core"}}})
    assert list(validator.iter_errors(merged(defaults, wrong_type)))


def test_the_z2jh_config_copies_the_course_culls_and_sizes_each_student():
    _, _, ours = z2jh_values()
    single = ours["singleuser"]
    shell, flag, script = single["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert (shell, flag) == ("sh", "-c") and script.startswith("bleu-lab lessons ")
    course = shlex.split(script)[2]
    assert single["defaultUrl"] == f"/lab/tree/{Path(course).name}/notebooks/00_start_here.ipynb"
    assert ours["cull"]["enabled"] is True and ours["cull"]["timeout"] > 0
    def megabytes(size: str) -> float:
        number, unit = re.fullmatch(r"([\d.]+)([MG])", size).groups()
        return float(number) * (1024 if unit == "G" else 1)
    assert 0 < megabytes(single["memory"]["guarantee"]) < megabytes(single["memory"]["limit"])
    assert 0 < single["cpu"]["guarantee"] < single["cpu"]["limit"]


@pytest.mark.skipif(sys.platform == "win32", reason="the hook is a POSIX shell command")
def test_a_failed_course_copy_cannot_kill_the_students_container(tmp_path: Path):
    """Kubernetes kills a container whose postStart hook fails: the hook's command exits 0 even when `bleu-lab
    lessons` fails (here: its folder cannot be made), and leaves the reason in the log it names."""
    _, _, ours = z2jh_values()
    script = ours["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"][2]
    home = tmp_path / "home"
    (home / "bleu-lab-course").parent.mkdir()
    (home / "bleu-lab-course").write_text("a file where the course folder should be\n")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "bleu-lab").symlink_to(Path(sys.executable).parent / "bleu-lab")
    done = subprocess.run(["sh", "-c", script.replace("/home/jovyan", str(home))], capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    log = (home / "bleu-lab-course-copy.log").read_text(encoding="utf-8")
    assert "bleu-lab-course" in log and "Traceback" not in log


FILL = re.compile(r"FILL: ")


def test_every_value_the_guide_says_to_fill_is_marked_in_the_z2jh_config():
    """The z2jh values a reader must replace start with "FILL:", and the guide's table of them names exactly those
    keys (a value left out of either would deploy as a placeholder, e.g. a pre-pull hook stalling on an image that
    does not exist)."""
    _, _, ours = z2jh_values()

    def marked(value: object, path: str = "") -> set[str]:
        if isinstance(value, dict):
            return set().union(*(marked(v, f"{path}.{k}" if path else k) for k, v in value.items()))
        if isinstance(value, list):
            return set().union(*(marked(v, path) for v in value))
        return {path} if isinstance(value, str) and FILL.match(value) else set()

    in_config = marked(ours)
    assert {"singleuser.image.name", "proxy.https.hosts", "hub.config.LTI13Authenticator.issuer"} <= in_config
    guide = (REPO / "docs" / "instructor.md").read_text(encoding="utf-8")
    table = guide[guide.index("<!-- z2jh values to fill -->"):guide.index("<!-- end of z2jh values to fill -->")]
    in_guide = set(re.findall(r"^\s*\| `([a-zA-Z0-9_.]+)` \|", table, re.M))
    assert in_guide == in_config


def test_the_z2jh_guide_names_the_chart_release_of_the_schema_it_is_checked_against():
    """The helm command pins a chart release, and it is the one whose JupyterHub the tested schema's chart runs."""
    guide = (REPO / "docs" / "instructor.md").read_text(encoding="utf-8")
    config = (SETTINGS / "z2jh" / "config.yaml").read_text(encoding="utf-8")
    for text in (guide, config):
        assert "CHART_VERSION" not in text
        (version,) = set(re.findall(r"--version (\S+) --values", text))
        assert version == "4.4.0"
    if Z2JH_PEER.is_dir():
        assert "appVersion 5.5.0" in (Z2JH_PEER / "COMMIT").read_text(encoding="utf-8")
    dockerfile = (SETTINGS / "z2jh" / "Dockerfile").read_text(encoding="utf-8")
    assert '"jupyterhub==5.5.0"' in dockerfile


def dockerfile_steps(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """The FROM image and the ARG, COPY and RUN instructions of a Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))
    steps, base = [], ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        if instruction == "FROM":
            base = rest
        elif instruction in ("ARG", "COPY", "RUN"):
            steps.append((instruction, rest))
        else:
            raise AssertionError(f"{path}: an instruction this test does not run: {line}")
    return base, steps


def test_the_image_base_is_a_pinned_docker_stacks_image():
    base, _ = dockerfile_steps(SETTINGS / "z2jh" / "Dockerfile")
    assert re.fullmatch(r"quay\.io/jupyter/minimal-notebook:\d{4}-\d{2}-\d{2}(@sha256:[0-9a-f]{64})?", base), base


@pytest.mark.skipif(sys.platform == "win32", reason="the image's commands are POSIX shell commands")
def test_the_dockerfile_install_steps_work_in_a_venv(tmp_path: Path):
    """Each COPY and RUN of the Dockerfile, in order, with a venv standing for the image's conda environment
    (CONDA_DIR) and a folder for the image's root (ARGs at their defaults, as a plain `docker build`): the wheel and
    its pinned dependencies install, the single-user server then loads the course's settings, and `bleu-lab lessons`
    copies the course. Then the graded build's last step (--build-arg BLEU_LAB_GRADED=1): the installed worked
    solutions are gone, and a graded start no longer warns that the student could read them."""
    if not shutil.which("sh"):
        pytest.skip("no POSIX shell")
    clone = tmp_path / "clone"
    shutil.copytree(REPO, clone, ignore=shutil.ignore_patterns(".venv*", ".git", "bleu-lab-course", "dist", "build",
                                                                  "__pycache__", "*.egg-info", ".hypothesis"))
    context = tmp_path / "context"  # the build context holds the wheel and nothing else
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(context), str(clone)],
                   check=True, capture_output=True)
    assert [p.name for p in context.iterdir()] == ["bleu_lab-0.1.0-py3-none-any.whl"]
    venv = tmp_path / "conda"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    image_root = tmp_path / "image"
    env = {**os.environ, "CONDA_DIR": str(venv), "NB_UID": str(os.getuid()), "NB_GID": str(os.getgid()),
           "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv),
           "HOME": str(tmp_path / "home")}
    env.pop("PYTHONPATH", None)
    (tmp_path / "home").mkdir()  # every command runs there, as in the image (jovyan's home), never in this clone
    _, steps = dockerfile_steps(SETTINGS / "z2jh" / "Dockerfile")
    assert [kind for kind, _ in steps].count("RUN") >= 2

    def in_image(path: str) -> str:  # the image's /tmp/... and the like, under image_root
        return str(image_root / path.lstrip("/")) if path.startswith("/tmp/") else path

    for kind, arguments in steps:
        if kind == "ARG":
            name, _, default = arguments.partition("=")
            env[name] = default
        elif kind == "COPY":
            words = [w for w in shlex.split(arguments) if not w.startswith("--")]
            *sources, destination = words
            target = Path(in_image(destination))
            target.mkdir(parents=True, exist_ok=True)
            for source in sources:
                shutil.copy(context / source, target)
        else:
            command = re.sub(r"/tmp/\S*?(?=[/'\"\s]|$)", lambda m: in_image(m.group(0)), arguments)
            done = subprocess.run(["sh", "-c", command], env=env, capture_output=True, text=True, cwd=env["HOME"])
            assert done.returncode == 0, f"RUN {arguments}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    python = venv / "bin" / "python"
    shown = subprocess.run([str(python), "-m", "jupyter_server", "--show-config"], env=env, capture_output=True,
                           text=True, check=True, cwd=env["HOME"])
    assert "bleu_lab" in shown.stdout and "save_without_python_version" in shown.stdout, shown.stdout[-3000:]
    lessons = subprocess.run([str(venv / "bin" / "bleu-lab"), "lessons", str(tmp_path / "home" / "course")],
                             env=env, capture_output=True, text=True, cwd=env["HOME"])
    assert lessons.returncode == 0, lessons.stderr
    assert (tmp_path / "home" / "course" / "notebooks" / "playground.ipynb").is_file()
    assert (tmp_path / "home" / "course" / "notebooks" / "solutions").is_dir()

    graded = {**env, "BLEU_LAB_GRADED": "1"}
    before = subprocess.run([str(venv / "bin" / "bleu-lab"), "lessons", str(tmp_path / "home" / "graded")],
                            env=graded, capture_output=True, text=True, cwd=env["HOME"])
    assert before.returncode == 0 and "warning: graded work (BLEU_LAB_GRADED=1)" in before.stderr, before.stderr
    kind, last = steps[-1]
    assert kind == "RUN" and "BLEU_LAB_GRADED" in last
    subprocess.run(["sh", "-c", last], env=graded, check=True, capture_output=True, cwd=env["HOME"])
    installed = subprocess.run([str(python), "-c", "from bleu_lab.course import course_root; print(course_root())"],
                               env=env, capture_output=True, text=True, check=True, cwd=env["HOME"]).stdout.strip()
    assert Path(installed).is_relative_to(venv), installed
    assert not (Path(installed) / "notebooks" / "solutions").exists()
    assert (Path(installed) / "notebooks" / "03_brevity_penalty.ipynb").is_file()
    after = subprocess.run([str(venv / "bin" / "bleu-lab"), "lessons", str(tmp_path / "home" / "graded2")],
                           env=graded, capture_output=True, text=True, cwd=env["HOME"])
    assert after.returncode == 0 and "warning" not in after.stderr, after.stderr
    assert not (tmp_path / "home" / "graded2" / "notebooks" / "solutions").exists()


def load_one_server_config(monkeypatch, state: Path, problems: list[str] | None = None, **environment: str):
    """The shipped jupyterhub_config.py as JupyterHub loads it (traitlets), started in ``state``, with the start
    check's answer replaced by ``problems`` (tests/test_hub_private.py runs the real one, with real accounts: this
    machine's own Python may sit where students cannot reach it); return the config and the check's arguments."""
    from traitlets.config.loader import PyFileConfigLoader

    from bleu_lab.hub import checks as hub_checks

    asked = {}
    monkeypatch.setattr(hub_checks, "start_problems", lambda **kwargs: asked.update(kwargs) or list(problems or []))
    monkeypatch.chdir(state)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return PyFileConfigLoader("jupyterhub_config.py", path=str(SETTINGS)).load_config(), asked


def test_the_one_server_config_copies_the_course_limits_and_culls(capfd, monkeypatch, tmp_path):
    """The shipped jupyterhub_config.py as JupyterHub loads it (traitlets), on this machine."""
    monkeypatch.delenv("BLEU_LAB_GRADED", raising=False)
    config, asked = load_one_server_config(monkeypatch, tmp_path)
    assert config.JupyterHub.db_url == f"sqlite:///{tmp_path / 'jupyterhub.sqlite'}"
    assert (tmp_path / "jupyterhub.sqlite").stat().st_mode & 0o777 == 0o600  # made private before JupyterHub opens it
    assert asked["group"] == "students" and asked["state"] == tmp_path and asked["solutions"] is None
    assert asked["python"] == Path(sys.executable) and asked["package"] == REPO / "bleu_lab"
    assert REPO / "notebooks" / "solutions" / "01_clip.py" in asked["course"]
    assert "BLEU_LAB_GRADED" not in config.Spawner.environment
    assert config.JupyterHub.authenticator_class == "pam"
    command = " ".join(config.Spawner.cmd)
    assert "bleu-lab" in command and "lessons" in command and "jupyterhub-singleuser" in command
    assert config.Spawner.notebook_dir == "~/bleu-lab-course"
    assert config.Spawner.default_url == "/lab/tree/notebooks/00_start_here.ipynb"
    singleuser_config = Path(config.Spawner.args[0].removeprefix("--config="))
    assert singleuser_config.is_file() and singleuser_config.name == "jupyter_server_config.py"
    assert config.Spawner.mem_limit and config.Spawner.cpu_limit
    if Path("/run/systemd/system").is_dir():
        assert config.JupyterHub.spawner_class == "systemdspawner.SystemdSpawner"
    else:  # a cgroup per student by hand; the config says what this machine enforces where the admin sees it
        from bleu_lab.hub import fallback as hub_fallback

        assert config.JupyterHub.spawner_class is hub_fallback.FallbackSpawner
        said = capfd.readouterr().err
        found = hub_fallback.probe()
        assert f"bleu_lab jupyterhub_config: {hub_fallback.describe(found, '1G', 1.0)}" in said
        assert ("mem_limit 1G" in said) == found.memory and ("cpu_limit 1.0" in said) == found.cpu
    (culler,) = config.JupyterHub.services
    assert culler["command"][1:3] == ["-m", "jupyterhub_idle_culler"]
    (role,) = config.JupyterHub.load_roles
    assert role["services"] == [culler["name"]]
    assert set(role["scopes"]) == {"list:users", "read:users:activity", "read:servers", "delete:servers"}


def test_the_one_server_config_refuses_to_start_on_a_problem(monkeypatch, tmp_path):
    with pytest.raises(SystemExit) as refused:
        load_one_server_config(monkeypatch, tmp_path, ["alice's home /home/alice is open: chmod 700 /home/alice",
                                                       "students cannot use X: chmod o+x /root"])
    assert str(refused.value).splitlines() == [
        "bleu_lab jupyterhub_config: the hub does not start until these are fixed (one per line):",
        "  alice's home /home/alice is open: chmod 700 /home/alice", "  students cannot use X: chmod o+x /root"]
    assert not (tmp_path / "jupyterhub.sqlite").exists()
    with pytest.raises(SystemExit, match="BLEU_LAB_GRADED must be 1 .* not 'yes'"):
        load_one_server_config(monkeypatch, tmp_path, BLEU_LAB_GRADED="yes")


def test_graded_mode_is_one_switch_on_both_hubs(monkeypatch, tmp_path):
    """BLEU_LAB_GRADED=1: the one-server hub hands it to each student's start command (`bleu-lab lessons` reads it)
    and checks that students cannot read the installed solutions; z2jh sets it in singleuser.extraEnv."""
    config, asked = load_one_server_config(monkeypatch, tmp_path, BLEU_LAB_GRADED="1", BLEU_LAB_STUDENTS_GROUP="ta1")
    assert config.Spawner.environment["BLEU_LAB_GRADED"] == "1"
    assert asked["solutions"] == REPO / "notebooks" / "solutions" and asked["group"] == "ta1"
    assert not [path for path in asked["course"] if "solutions" in path.parts]
    _, _, ours = z2jh_values()
    assert ours["singleuser"]["extraEnv"]["BLEU_LAB_GRADED"] in ("0", "1")


def test_graded_lessons_one_at_a_time_reach_each_students_start_command(monkeypatch, tmp_path):
    """BLEU_LAB_RELEASED: read (and checked) when the hub starts, handed to each student's `bleu-lab lessons`, and the
    login opens the lessons' folder (the first lesson may not be out yet); without graded work it is refused."""
    from bleu_lab.hub import checks as hub_checks

    released = tmp_path / "released.txt"
    released.write_text("03_brevity_penalty\n")
    checked = []  # the real check runs in the next test (pytest's folders are private: students could not read it)
    monkeypatch.setattr(hub_checks, "released_problems", lambda path, gids: checked.append(path) or [])
    config, _ = load_one_server_config(monkeypatch, tmp_path, BLEU_LAB_GRADED="1", BLEU_LAB_RELEASED=str(released))
    assert config.Spawner.environment["BLEU_LAB_RELEASED"] == str(released)
    assert config.Spawner.default_url == "/lab/tree/notebooks" and checked == [released]
    released.write_text("3\n")
    with pytest.raises(SystemExit, match=r"released.txt, line 1: '3' is not a lesson"):
        load_one_server_config(monkeypatch, tmp_path, BLEU_LAB_GRADED="1", BLEU_LAB_RELEASED=str(released))
    with pytest.raises(SystemExit, match="releases graded lessons one at a time: set BLEU_LAB_GRADED=1 too"):
        load_one_server_config(monkeypatch, tmp_path, BLEU_LAB_GRADED="0", BLEU_LAB_RELEASED=str(released))


def test_the_released_file_must_be_readable_and_unchangeable_by_students():
    import tempfile

    from bleu_lab.hub.checks import released_problems

    with tempfile.TemporaryDirectory() as folder:  # in /tmp (sticky): pytest's own folders are private
        Path(folder).chmod(0o755)
        check_released_file_modes(Path(folder) / "released.txt", released_problems)


def check_released_file_modes(released: Path, released_problems) -> None:
    released.write_text("03_brevity_penalty\n")
    students = frozenset({released.stat().st_gid + 12345})  # a group owning none of these files
    released.chmod(0o644)
    assert released_problems(released, students) == []
    released.chmod(0o646)
    assert released_problems(released, students) == [
        f"students could change the released lessons' file {released}: {released} (mode 646, root:root) is "
        f"writable by them; chmod go-w {released}"]
    released.chmod(0o664)  # group-writable: a problem only when the group is the students'
    assert released_problems(released, students) == []
    assert "is writable by them" in released_problems(released, frozenset({released.stat().st_gid}))[0]
    released.chmod(0o640)
    assert released_problems(released, students)[0].startswith("students cannot use the released lessons' file")



SERVER_START = """\
import json, subprocess, sys
launched = []
_popen = subprocess.Popen.__init__


def record(self, args, *rest, **kwargs):
    launched.append([str(a) for a in args] if isinstance(args, list) else [str(args)])
    return _popen(self, args, *rest, **kwargs)


subprocess.Popen.__init__ = record
if sys.argv[1]:  # the single-user settings, loaded as the server loads them: before it imports its extensions
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(sys.argv[1]).load_config()
    print(json.dumps({"extensions": config.ServerApp.jpserver_extensions,
                      "manager": config.LabApp.extension_manager}))
import jupyterlab.labapp  # noqa: E402,F401 (what the server imports for JupyterLab)

print(json.dumps(launched))
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on the PATH: JupyterLab then starts none anyway")
def test_a_students_server_starts_no_node_process_and_only_the_courses_extensions():
    """JupyterLab's import runs `node yarn.js config --json` where node is on the PATH (as on a one-server hub, for
    its proxy); the single-user settings make it read the yarn configuration as where node is absent, and turn off
    the server extensions the course does not use. Without the settings, the same import does run node."""
    settings = SETTINGS / "singleuser" / "jupyter_server_config.py"

    def start(config: str) -> list[str]:
        run = subprocess.run([sys.executable, "-c", SERVER_START, config], capture_output=True, text=True,
                             timeout=120, check=True)
        return run.stdout.splitlines()

    assert any("yarn.js" in " ".join(args) for args in json.loads(start("")[-1]))
    read, launched = start(str(settings))[-2:]
    assert json.loads(launched) == []
    read = json.loads(read)
    assert read["manager"] == "readonly"
    assert read["extensions"] == {"jupyter_lsp": False, "notebook": False, "notebook_shim": False}


def test_the_hub_names_server_modules_without_bytecode_and_the_command_that_compiles_them(monkeypatch, tmp_path):
    """Where students cannot write bytecode into the hub's environment, every server start compiles each module that
    has none or a stale one; the hub's log says so, with the compileall command, and is silent once it has run."""
    import compileall

    from bleu_lab.hub import checks as hub_checks

    package = tmp_path / "course_stack_probe"
    (package / "inner").mkdir(parents=True)
    for path in (package / "__init__.py", package / "a.py", package / "inner" / "__init__.py"):
        path.write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert hub_checks.uncompiled_packages(["course_stack_probe", "no_such_package_here"]) == {package: 3}
    note = hub_checks.bytecode_note(Path("/opt/hub/bin/python"), ["course_stack_probe"])
    assert note.startswith("3 modules of the students' servers have no current bytecode (in course_stack_probe)")
    assert note.endswith(f"/opt/hub/bin/python -m compileall -q {package}")
    assert compileall.compile_dir(str(package), quiet=1)
    assert hub_checks.bytecode_note(Path("/opt/hub/bin/python"), ["course_stack_probe"]) == ""
    (package / "a.py").write_text("VALUE = 22\n")  # changed after compiling: its bytecode is stale
    assert hub_checks.uncompiled_packages(["course_stack_probe"]) == {package: 1}
