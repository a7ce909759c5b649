"""The vertex shader of a picture-filling quad (arcade's ``geometry.quad_2d_fs()``).

Passes the quad's corners through in clip space and hands the fragment shader ``uv`` (0..1
over the picture). The video's upscale (:mod:`engine.runtime.video`) and the screen overlay
(:class:`engine.rendering.particles.ScreenOverlay`) both draw with it.
"""

from __future__ import annotations

__all__ = ["FULLSCREEN_QUAD_VERTEX"]

FULLSCREEN_QUAD_VERTEX = """
#version 330
in vec2 in_vert;
in vec2 in_uv;
out vec2 uv;
void main() {
    gl_Position = vec4(in_vert, 0.0, 1.0);
    uv = in_uv;
}
"""
