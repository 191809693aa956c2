"""Settings of a student's own Jupyter server on a JupyterHub (the single-user server), for bleu_lab's course.

The same settings that ``bleu-lab lab`` gives JupyterLab on a laptop (bleu_lab/course/__init__.py, ``lab_command``),
plus the Voilà server extension's template, so that ``/user/NAME/voila/render/notebooks/playground.ipynb`` (and
``compare_app.ipynb``) load nothing from the internet. Loaded by the single-user server:

- on one server, with ``--config=`` this file (jupyter-settings/jupyterhub_config.py adds it to ``Spawner.args``);
- in the z2jh image, from ``$CONDA_DIR/etc/jupyter/jupyter_server_config.py`` (jupyter-settings/z2jh/Dockerfile).
"""

from jupyterlab import commands as _lab_commands  # not jupyterlab.labapp, whose import runs node (below)

from bleu_lab.course import UPLOAD_MESSAGE_BYTES

c = get_config()  # noqa: F821 (defined by traitlets when it loads this file)

# Lessons saved without the Python version in their metadata: opening a lesson does not count as a change, so
# `bleu-lab lessons` can still update the lessons a student never edited.
c.ContentsManager.pre_save_hook = "bleu_lab.course.save_without_python_version"
# The comparison page sends an uploaded file as one widget message: the same bound as `bleu-lab lab`.
c.ServerApp.tornado_settings = {"websocket_max_message_size": UPLOAD_MESSAGE_BYTES}
# Voilà as a server extension (/voila/render/...): the course's offline template, as in voila.json.
c.VoilaConfiguration.template = "bleu_lab"
c.VoilaConfiguration.extension_denylist = ["@jupyter-notebook/lab-extension",
                                           "@voila-dashboards/jupyterlab-preview"]
# As voila.json: the apps' cells tagged voila-hide (the playground's static section "Without a running kernel") are
# left out of the page and never run. Voilà hands the server's config to nbconvert, so this is where it is set.
c.TagRemovePreprocessor.remove_cell_tags = ["voila-hide"]
# A kernel nobody used for 20 minutes (a closed tab, a lesson left open) is shut down: its memory goes back to the
# server long before the hub's idle culler stops the whole server. Busy kernels (a long cell) are left alone.
c.MappingKernelManager.cull_idle_timeout = 20 * 60
c.MappingKernelManager.cull_interval = 60
c.MappingKernelManager.cull_busy = False
# Only the server extensions the course uses: JupyterLab, Voila, the hub's own, and terminals (lessons 7 and 11 run
# `bleu-lab why` from one). Off: jupyter_lsp (no language server is installed, yet it would search for about 40 of them
# at every start, running `npm prefix -g`, a node process, where node is installed), and the Notebook 7 pages with
# notebook_shim (the course opens JupyterLab; a hub installed with bleu_lab[hub] has no Notebook 7, the z2jh image
# has): 0.15 CPU s and 3 MB of each server's start (docs/instructor.md, "On a JupyterHub: what was measured").
c.ServerApp.jpserver_extensions = {"jupyter_lsp": False, "notebook": False, "notebook_shim": False}
# No extension manager that searches PyPI: a student cannot install into the hub's environment anyway.
c.LabApp.extension_manager = "readonly"
# No node process at every start. Importing jupyterlab.labapp asks `node yarn.js config --json` for the npm registry
# (jupyterlab/commands.py: get_app_version -> AppOptions.registry -> _yarn_config), wherever node is on the PATH, as
# on a one-server hub, which has node for its proxy: 0.3-0.5 CPU s of each server's start; no setting turns it off.
# The registry is used only to install JupyterLab extensions from npm, which no student does here, so the server
# reads the yarn configuration as JupyterLab does where node is not installed: empty (its default registry).


def _no_yarn_config(logger):
    """What ``jupyterlab.commands._yarn_config`` returns where node is not installed."""
    return {"yarn config": {}, "npm config": {}}


_lab_commands._yarn_config = _no_yarn_config
# Kernels on TCP ports chosen free at start: on one server, 20 students' servers choose theirs at the same moment,
# and another server's kernel can take a port between its choice and the kernel's bind (jupyter_client issue #487;
# benchmarks/bench_hub.py --students 20 hit it: "ZMQError: Address already in use"). The server then restarts the
# kernel "with new random ports", but jupyter_client's port cache (cache_ports, on by default) keeps the same ports on
# restart, so all five restarts failed and the lesson's kernel died. Without the cache a restart gets new ports.
c.KernelManager.cache_ports = False
