"""Build step: the wheel carries the course.

The repository keeps the course at its top level (notebooks/, data/, docs/, jupyter-settings/, voila.json), where a
clone uses it. A wheel gets a copy of those files as package data under ``bleu_lab/course_files/``, in the same
layout, so ``bleu_lab.course.course_root()`` finds them with importlib.resources. Everything else is in
pyproject.toml; MANIFEST.in puts the same files in the sdist, so a wheel built from the sdist has them too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# What the course needs, as globs relative to the repository root: among them every glob of WORKING_COPY in
# bleu_lab/course/__init__.py (what `bleu-lab lessons` copies out of the installed course; keep the two in step).
COURSE_FILES = (
    "notebooks/*.ipynb",  # the lessons and the playground
    "notebooks/solutions/*.py",  # worked solutions, loaded with %load from the lessons
    "data/**/*",  # the news corpus and published score tables, with their cards (README.md)
    "docs/*.md",  # the reading list the lessons link to, the instructor's guide
    "jupyter-settings/overrides.d/*.json",  # JupyterLab settings (no news or update toasts)
    "jupyter-settings/voila-template/*",  # the classroom's offline Voila template
    "jupyter-settings/jupyterhub_config.py",  # a course hub on one server (docs/instructor.md, "On a JupyterHub")
    "jupyter-settings/singleuser/*.py",  # each student's server on a hub: Voila template, save hook, message size
    "jupyter-settings/z2jh/*",  # Zero to JupyterHub: config.yaml and the single-user image's Dockerfile
    "voila.json",  # classroom mode's Voila configuration
    "requirements.txt",  # the pins the lessons were executed with: z2jh's Dockerfile installs the wheel with them
)
PACKAGE_FOLDER = Path("bleu_lab") / "course_files"


def course_files(root: Path) -> list[Path]:
    """The course's files under ``root``, relative to it (no caches, no notebook checkpoints)."""
    found = set()
    for pattern in COURSE_FILES:
        for path in root.glob(pattern):
            relative = path.relative_to(root)
            if path.is_file() and not {"__pycache__", ".ipynb_checkpoints"} & set(relative.parts):
                found.add(relative)
    return sorted(found)


class BuildPyWithCourse(build_py):
    """``build_py``, then a copy of the course's files into ``bleu_lab/course_files/`` of the build.

    An editable install (``pip install -e .``) skips the copy: it reads the files where the clone has them.
    """

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        root = Path(__file__).resolve().parent
        files = course_files(root)
        if not any(path.suffix == ".ipynb" for path in files):
            raise RuntimeError(f"no lessons found under {root / 'notebooks'}: the course cannot be packaged")
        for relative in files:
            target = Path(self.build_lib) / PACKAGE_FOLDER / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / relative, target)


setup(cmdclass={"build_py": BuildPyWithCourse})
