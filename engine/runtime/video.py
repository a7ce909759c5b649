"""The game's picture: drawn at a fixed internal resolution, shown scaled in the window.

Every scene draws into an offscreen framebuffer of the internal resolution (``[video]
internal_width`` x ``internal_height``, 640 x 360 by default). Once the frame is drawn,
:meth:`Video.present` puts that picture in the window with nearest-neighbour filtering (pixel art
stays crisp), scaled and placed by :func:`engine.rendering.screen_fit.fit_rect` (whole-number
scales with black bars by default). So:

* what is drawn does not depend on the window: a resized, fullscreen or 4K window shows the same
  picture, only bigger, and a test can check pixels at 640 x 360;
* rasterising costs the internal resolution, not the window's (in software GL a 640 x 360 frame
  costs about a quarter of a 1280 x 720 one);
* the window needs no multisampling (``[video] msaa_samples = 0``).

Scenes draw through cameras bound to the picture: :meth:`Video.camera` makes one (the world
camera a level moves around, or a screen camera for the HUD and menus, whose coordinates are
picture pixels from the bottom-left). :attr:`Video.size_px` is the picture's size. Screenshots
(:meth:`Video.screenshot`) save the window as the player sees it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import arcade
from arcade.gl import geometry

from engine.config import VideoConfig
from engine.rendering.fullscreen_quad import FULLSCREEN_QUAD_VERTEX
from engine.rendering.screen_fit import ScaleMode, fit_rect

__all__ = ["Video"]

_FRAGMENT = """
#version 330
uniform sampler2D picture;
in vec2 uv;
out vec4 color;
void main() {
    color = texture(picture, uv);
}
"""

LETTERBOX_COLOR = (0, 0, 0, 255)


class Video:
    """The internal picture and how the window shows it.

    Args:
        window: The arcade window.
        settings: ``[video]``.
    """

    def __init__(self, window: arcade.Window, settings: VideoConfig) -> None:
        self.window = window
        self.size_px: tuple[int, int] = settings.internal_size
        self.scale_mode: ScaleMode = settings.scale_mode  # type: ignore[assignment]
        ctx = window.ctx
        self.texture = ctx.texture(self.size_px, components=4, filter=(ctx.NEAREST, ctx.NEAREST))
        self.framebuffer = ctx.framebuffer(color_attachments=[self.texture])
        self._program = ctx.program(vertex_shader=FULLSCREEN_QUAD_VERTEX, fragment_shader=_FRAGMENT)
        self._quad = geometry.quad_2d_fs()

    def apply(self, settings: VideoConfig) -> None:
        """Use a new scale mode from now on (the internal size is fixed once the window opens)."""
        self.scale_mode = settings.scale_mode  # type: ignore[assignment]

    @property
    def width_px(self) -> int:
        """The picture's width."""
        return self.size_px[0]

    @property
    def height_px(self) -> int:
        """The picture's height."""
        return self.size_px[1]

    def camera(self, **options: Any) -> arcade.Camera2D:
        """A camera drawing into the picture (``options`` as for ``arcade.Camera2D``)."""
        return arcade.Camera2D(render_target=self.framebuffer, window=self.window, **options)

    def begin(self, background: Any) -> None:
        """Start a frame: draw into the picture from now on, cleared to ``background``."""
        self.framebuffer.use()
        self.framebuffer.clear(color=background)

    def present_rect(self) -> tuple[int, int, int, int]:
        """Where the picture goes in the window: ``(left, bottom, width, height)``."""
        return fit_rect(self.size_px, self.window.get_framebuffer_size(), self.scale_mode)

    def present(self) -> None:
        """Show the picture in the window: black bars, then the picture scaled into its place."""
        ctx = self.window.ctx
        screen = ctx.screen
        screen.use()
        width, height = self.window.get_framebuffer_size()
        rect = self.present_rect()
        if rect != (0, 0, width, height):  # bars to paint (a clear costs a pass over the window)
            screen.viewport = (0, 0, width, height)
            screen.clear(color=LETTERBOX_COLOR)
        screen.viewport = rect
        self.texture.use(0)
        self._program["picture"] = 0
        with ctx.enabled_only():  # no blending: the picture replaces what is there
            self._quad.render(self._program)
        screen.viewport = (0, 0, width, height)

    def screenshot(self, path: str | Path) -> None:
        """Save the window as the player sees it (the scaled picture, bars included), as a PNG
        written atomically.

        Raises:
            OSError: The file cannot be written.
        """
        from engine.runtime.launch import save_png

        self.window.ctx.screen.use()
        width, height = self.window.get_framebuffer_size()
        save_png(arcade.get_image(0, 0, width, height), Path(path))

    def picture_image(self) -> Any:
        """The picture itself at the internal resolution, as a Pillow image (for tests)."""
        from PIL import Image

        data = self.framebuffer.read(components=4)
        image = Image.frombytes("RGBA", self.size_px, data)
        return image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
