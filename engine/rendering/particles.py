"""Particles and screen overlays drawn straight from numpy arrays: one buffer write, one draw call.

Effects such as dust, sparks and sparkles are many small squares that live for a fraction of a
second. Making a sprite per particle costs a Python object and a setter call each; here a frame's
particles are two numpy arrays, positions ``(n, 2)`` in world pixels and colours ``(n, 4)`` as
``uint8`` RGBA, written into one GL buffer and drawn as ``GL_POINTS`` in one call, through the
current camera (so they scroll and shake with the world)::

    points = PointBatch(window.ctx)
    points.draw(xy_px, rgba, size_px=2)

:class:`ScreenOverlay` draws a whole-picture colour wash (a hurt flash) or an *iris*: the picture
black outside a circle, for a death-and-respawn transition, with a small shader.

Both only draw. Where the particles are is the game's business, computed from its state (see
the game's ``effects`` module), so an effect never changes what it shows.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.rendering.fullscreen_quad import FULLSCREEN_QUAD_VERTEX

__all__ = ["PointBatch", "ScreenOverlay"]

_POINT_VERTEX = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;
in vec2 in_pos;
in vec4 in_color;
out vec4 v_color;
void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    v_color = in_color;
}
"""

_POINT_FRAGMENT = """
#version 330
in vec4 v_color;
out vec4 color;
void main() {
    color = v_color;
}
"""

_OVERLAY_FRAGMENT = """
#version 330
uniform vec4 wash;          // colour over everything (alpha 0: none)
uniform vec2 size_px;       // the picture's size
uniform vec3 iris;          // centre x, y and radius in picture pixels (radius < 0: no iris)
in vec2 uv;
out vec4 color;
void main() {
    vec2 p = uv * size_px;
    float outside = (iris.z >= 0.0 && distance(p, iris.xy) > iris.z) ? 1.0 : 0.0;
    vec4 c = wash;
    color = outside > 0.0 ? vec4(0.0, 0.0, 0.0, 1.0) : c;
}
"""


_PROGRAMS: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], Any]] = weakref.WeakKeyDictionary()


def _program(ctx: Any, vertex_shader: str, fragment_shader: str) -> Any:
    """The linked program of these shaders in ``ctx``, compiled once per context.

    Every level scene draws particles and overlays; compiling their shaders for each (a level
    restart builds a new scene) cost about 3 ms a program here. Each draw sets the uniforms it
    uses, so scenes can share one program.
    """
    programs = _PROGRAMS.setdefault(ctx, {})
    key = (vertex_shader, fragment_shader)
    program = programs.get(key)
    if program is None:
        program = ctx.program(vertex_shader=vertex_shader, fragment_shader=fragment_shader)
        programs[key] = program
    return program


class PointBatch:
    """Draws up to any number of square points per call from numpy arrays.

    Args:
        ctx: The arcade GL context (``window.ctx``).
        capacity: Points the buffer holds before it grows (it doubles as needed).
    """

    def __init__(self, ctx: Any, capacity: int = 1024) -> None:
        self.ctx = ctx
        self._program = _program(ctx, _POINT_VERTEX, _POINT_FRAGMENT)
        self._capacity = 0
        self._buffer: Any = None
        self._geometry: Any = None
        self._data = np.zeros(0, dtype=[("pos", np.float32, 2), ("color", np.uint8, 4)])
        self._grow(capacity)

    def _grow(self, capacity: int) -> None:
        from arcade.gl import BufferDescription

        self._capacity = capacity
        self._data = np.zeros(capacity, dtype=self._data.dtype)
        self._buffer = self.ctx.buffer(reserve=self._data.nbytes)
        self._geometry = self.ctx.geometry(
            [BufferDescription(self._buffer, "2f 4f1", ["in_pos", "in_color"])],
            mode=self.ctx.POINTS,
        )

    def draw(
        self, xy_px: npt.NDArray[np.floating[Any]], rgba: npt.NDArray[np.uint8], size_px: float
    ) -> None:
        """Draw ``len(xy_px)`` squares ``size_px`` wide (picture pixels), blended by alpha.

        Args:
            xy_px: Centres, ``(n, 2)``, in the current camera's world pixels.
            rgba: Colours, ``(n, 4)`` ``uint8``.
            size_px: The side of every square.
        """
        count = len(xy_px)
        if count == 0:
            return
        if count > self._capacity:
            self._grow(max(count, 2 * self._capacity))
        data = self._data[:count]
        data["pos"] = xy_px
        data["color"] = rgba
        self._buffer.write(data.tobytes())
        ctx = self.ctx
        ctx.point_size = size_px
        ctx.enable(ctx.BLEND)
        self._geometry.render(self._program, vertices=count)


class ScreenOverlay:
    """A colour wash and an iris over the whole picture (drawn last, in picture pixels).

    Args:
        ctx: The arcade GL context.
    """

    def __init__(self, ctx: Any) -> None:
        from arcade.gl import geometry

        self.ctx = ctx
        self._program = _program(ctx, FULLSCREEN_QUAD_VERTEX, _OVERLAY_FRAGMENT)
        self._quad = geometry.quad_2d_fs()

    def draw(
        self,
        size_px: tuple[int, int],
        *,
        wash_rgba: tuple[int, int, int, int] = (0, 0, 0, 0),
        iris: tuple[float, float, float] | None = None,
    ) -> None:
        """Draw a wash and/or an iris; nothing when neither shows.

        Args:
            size_px: The picture's size.
            wash_rgba: A colour laid over the whole picture (alpha 0: none).
            iris: ``(x, y, radius)`` in picture pixels from the bottom-left: black outside the
                circle (None: no iris).
        """
        if wash_rgba[3] == 0 and iris is None:
            return
        program = self._program
        program["wash"] = tuple(c / 255 for c in wash_rgba)
        program["size_px"] = (float(size_px[0]), float(size_px[1]))
        program["iris"] = iris if iris is not None else (0.0, 0.0, -1.0)
        ctx = self.ctx
        ctx.enable(ctx.BLEND)
        self._quad.render(program)
