"""The hub's side, on top of the course: the checks a JupyterHub runs before it starts (``checks``), the fallback
spawner for a machine without systemd (``fallback``), and the cgroup tree that limits each student's server and each
graded notebook's run (``cgroups``; the grader in ``bleu_lab.assignments`` uses it too, from the layer above). Needs
the "hub" extra; nothing below this layer imports it.
"""
