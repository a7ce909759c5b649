"""The timing core and the simulator import no arcade, pyglet or pymunk: prove it in a clean process."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("arcade", "pyglet", "pymunk")


def _modules_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_timing_core_imports_no_gl_or_physics() -> None:
    loaded = _modules_after_import("engine.timing")
    assert "engine.timing.game_loop" in loaded  # the check sees what it should
    assert not {name for name in loaded if name.split(".")[0] in FORBIDDEN}


def test_monitor_simulator_imports_no_gl_or_physics() -> None:
    loaded = _modules_after_import("engine.tools.monitor_sim.simulation")
    assert "engine.tools.monitor_sim.simulation" in loaded
    assert not {name for name in loaded if name.split(".")[0] in FORBIDDEN}
