"""The base class of the kit's widgets: a ``VBox`` that also shows without a widget
frontend.

Where no widget frontend runs (an HTML export, GitHub's preview, an untrusted
notebook before it is run), Jupyter falls back to the other entries of the output's
mime bundle. Each widget puts its picture there (``static_html()``: the drawing and
tables as plain HTML, pictures as ``<img>`` so the sanitiser keeps them) and a text
summary (``plain_text()``, its repr unless it says otherwise).
"""

from __future__ import annotations

import ipywidgets as widgets

__all__ = ["FallbackVBox"]


class FallbackVBox(widgets.VBox):
    """A ``VBox`` whose output also carries ``static_html()`` and ``plain_text()``."""

    def static_html(self) -> str:
        raise NotImplementedError

    def plain_text(self) -> str:
        return repr(self)

    def _repr_mimebundle_(self, **kwargs) -> dict:
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.plain_text()
        bundle["text/html"] = self.static_html()
        return bundle
