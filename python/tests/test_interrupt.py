"""Ctrl-C (SIGINT, sent from another thread) stops a long render within about a second and
leaves the process usable."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import warpath

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt", reason="POSIX signals")


def interrupt_after(seconds):
    """Sends SIGINT to this process after `seconds`; returns a list that gets the time sent."""
    sent = []

    def send():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(seconds, send).start()
    return sent


def test_ctrl_c_stops_a_long_render_within_a_second():
    scene = warpath.load("cornell")
    sent = interrupt_after(0.5)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        # About ten minutes of samples on two cores.
        warpath.render(scene, spp=1_000_000, resolution=(64, 48), backend="cpu", progress=False)
    stopped = time.monotonic()
    assert sent, "the render ended before the signal"
    assert stopped - sent[0] < 1.0, f"stopped {stopped - sent[0]:.2f} s after Ctrl-C"
    assert stopped - start < 5
    # The process is usable: the next render works and is the same as ever.
    again = warpath.render(scene, spp=2, resolution=(8, 8), seed=1, backend="cpu", progress=False)
    assert np.array_equal(again, warpath.render(scene, spp=2, resolution=(8, 8), seed=1, backend="cpu",
                                                progress=False))


def test_ctrl_c_stops_a_frame_sequence():
    sent = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        warpath.render_frames(warpath.load("cornell"), 1_000_000, resolution=(32, 24), backend="cpu",
                              progress=False)
    assert sent and time.monotonic() - sent[0] < 1.0


def test_ctrl_c_stops_an_isovalue_sweep():
    volume = np.fromfunction(lambda x, y, z: np.sin(x / 3) + np.cos(y / 4) + z / 10, (24, 24, 24))
    sent = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        warpath.isosurface(volume, np.linspace(-1, 3, 20_000), resolution=(32, 32), backend="cpu")
    assert sent and time.monotonic() - sent[0] < 1.0
