"""Settings of a student's own Jupyter server on a JupyterHub (the single-user server), for bleu_lab's course.

The same settings that ``bleu-lab lab`` gives JupyterLab on a laptop (bleu_lab/course/__init__.py, ``lab_command``),
plus the Voilà server extension's template, so that ``/user/NAME/voila/render/notebooks/playground.ipynb`` (and
``compare_app.ipynb``) load nothing from the internet. Loaded by the single-user server:

- on one server, with ``--config=`` this file (jupyter-settings/jupyterhub_config.py adds it to ``Spawner.args``);
- in the z2jh image, from ``$CONDA_DIR/etc/jupyter/jupyter_server_config.py`` (jupyter-settings/z2jh/Dockerfile).
"""

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
# No language-server protocol on a course hub (no language server is installed): jupyter_lsp would still search for
# about 40 of them at every start, running `npm prefix -g` (a node process, 0.15 CPU s) where node is installed.
c.ServerApp.jpserver_extensions = {"jupyter_lsp": False}
# Kernels on TCP ports chosen free at start: on one server, 20 students' servers choose theirs at the same moment,
# and another server's kernel can take a port between its choice and the kernel's bind (jupyter_client issue #487;
# benchmarks/bench_hub.py --students 20 hit it: "ZMQError: Address already in use"). The server then restarts the
# kernel "with new random ports", but jupyter_client's port cache (cache_ports, on by default) keeps the same ports on
# restart, so all five restarts failed and the lesson's kernel died. Without the cache a restart gets new ports.
c.KernelManager.cache_ports = False
