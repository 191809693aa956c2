"""The pages' markup: Jinja2 templates (``*.html.j2`` in this folder, package data) and the one place that renders them.

Python modules pass data; the templates decide the markup. Every value a template shows is escaped unless it is
markup already (``markupsafe.Markup``: a fragment rendered from a template here, or one of the views' own style
constants), so escaping is the default rather than something each view remembers. Values are escaped as
``html.escape`` does (``'`` as ``&#x27;``, ``"`` as ``&quot;``), the spelling these pages have always had.
Templates are found by a ``PackageLoader``, so they load from a wheel or a clone alike.
"""

from __future__ import annotations

import html
from functools import cache

import jinja2
from markupsafe import Markup

__all__ = ["Markup", "macros", "render"]


def _escaped(value: object) -> Markup:
    """What a ``{{ value }}`` writes: markup as it is, anything else as text (``html.escape``'s entities)."""
    if value.__class__ is str:
        return Markup(html.escape(value))
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value)))


@cache
def environment() -> jinja2.Environment:
    """The templates' environment: autoescape on, undefined names an error, block tags leave no blank lines."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("bleu_lab.reports", "templates"),
        autoescape=True,
        finalize=_escaped,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # package data: read once
    )


def render(template: str, /, **data: object) -> str:
    """The template ``template`` (e.g. ``"explain.html.j2"``) rendered with ``data``, as a plain string."""
    return environment().get_template(template).render(**data)


def macros(template: str, /, **constants: object) -> object:
    """The macros of template ``template`` (attributes of the returned module; each returns ``Markup``), with
    ``constants`` as the names the template reads besides the macros' arguments. Cache it: this runs the template."""
    return environment().get_template(template).make_module(constants)
