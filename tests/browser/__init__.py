"""Browser tests: widget notebooks driven in real Chromium through JupyterLab and Voilà."""
