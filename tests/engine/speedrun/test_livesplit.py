"""LiveSplit client against a real TCP server on 127.0.0.1: order, late start, restart, no stalls."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from engine.config import LiveSplitConfig
from engine.speedrun.livesplit import LiveSplitClient, from_config, livesplit_time_text

FAST_RETRY = {"backoff_min_s": 0.05, "backoff_max_s": 0.2}


class LineServer:
    """A small threaded TCP server that records every ``\\r\\n``-terminated line it receives."""

    def __init__(self, port: int = 0) -> None:
        self.lines: list[str] = []
        self.accepted = 0
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        owner = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                with owner._lock:
                    owner.accepted += 1
                    owner._open.append(self.connection)
                for raw in self.rfile:
                    assert raw.endswith(b"\r\n"), raw  # the protocol's line ending
                    with owner._lock:
                        owner.lines.append(raw[:-2].decode("utf-8"))

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def received(self) -> list[str]:
        with self._lock:
            return list(self.lines)

    def stop(self) -> None:
        """Stop listening and cut every open connection, like LiveSplit quitting."""
        self.server.shutdown()
        self.server.server_close()
        with self._lock:
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()


def _wait_until(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server() -> Iterator[LineServer]:
    line_server = LineServer()
    yield line_server
    line_server.stop()


def test_time_text_is_what_livesplit_parses() -> None:
    assert livesplit_time_text(0) == "0:00:00.000"
    assert livesplit_time_text(62_345) == "0:01:02.345"
    assert livesplit_time_text(3_600_000 + 1) == "1:00:00.001"
    with pytest.raises(ValueError):
        livesplit_time_text(-1)


def test_commands_arrive_in_order(server: LineServer) -> None:
    messages: list[str] = []
    client = LiveSplitClient("127.0.0.1", server.port, warn=messages.append, info=messages.append)
    try:
        client.start_timer()
        client.split(game_time_ms=62_345)
        client.pause_game_time()
        client.resume_game_time()
        client.split()
        expected = [
            "starttimer",
            "pausegametime",
            "setgametime 0:00:00.000",
            "setgametime 0:01:02.345",
            "split",
            "pausegametime",
            "unpausegametime",
            "split",
        ]
        # the first setgametime may be superseded by the second if both waited in the queue
        assert _wait_until(
            lambda: server.received()[-1:] == ["split"] and len(server.received()) >= 7
        )
        got = server.received()
        assert got in (expected, expected[:2] + expected[3:])
        client.reset()
        assert _wait_until(lambda: server.received()[-1:] == ["reset"])
        assert messages == []  # connected at once: nothing to say
        assert client.connected and server.accepted == 1
    finally:
        client.close()


def test_calls_are_fast_while_connected(server: LineServer) -> None:
    client = LiveSplitClient("127.0.0.1", server.port, warn=lambda _m: None)
    try:
        assert _wait_until(lambda: client.connected)
        start = time.perf_counter()
        for ms in range(1000):
            client.set_game_time_ms(ms)
        elapsed_s = time.perf_counter() - start
        assert elapsed_s < 0.05
        assert _wait_until(lambda: server.received()[-1:] == ["setgametime 0:00:00.999"])
    finally:
        client.close()


def test_livesplit_started_after_the_game_receives_the_run_so_far() -> None:
    port = _free_port()
    warnings: list[str] = []
    infos: list[str] = []
    client = LiveSplitClient(
        "127.0.0.1", port, warn=warnings.append, info=infos.append, **FAST_RETRY
    )
    try:
        client.start_timer()
        client.split(game_time_ms=1_000)
        client.set_game_time_ms(1_200)
        client.set_game_time_ms(1_500)  # supersedes 1_200 while waiting
        assert _wait_until(lambda: len(warnings) == 1)
        time.sleep(0.3)  # several more failed attempts: still one warning
        assert len(warnings) == 1
        assert f"127.0.0.1:{port}" in warnings[0]
        late = LineServer(port)
        try:
            expected = [
                "starttimer",
                "pausegametime",
                "setgametime 0:00:01.000",  # superseded the start's 0:00:00.000 before sending
                "split",
                "setgametime 0:00:01.500",
            ]
            assert _wait_until(lambda: late.received() == expected), late.received()
            assert _wait_until(lambda: infos == [f"LiveSplit: connected to 127.0.0.1:{port}"])
            client.split(game_time_ms=2_000)
            assert _wait_until(lambda: late.received()[-2:] == ["setgametime 0:00:02.000", "split"])
            assert len(warnings) == 1
        finally:
            late.stop()
    finally:
        client.close()


def test_reconnects_after_livesplit_restarts_mid_run() -> None:
    first = LineServer()
    port = first.port
    warnings: list[str] = []
    client = LiveSplitClient(
        "127.0.0.1", port, warn=warnings.append, info=lambda _m: None, **FAST_RETRY
    )
    try:
        client.start_timer()
        assert _wait_until(lambda: first.received()[:1] == ["starttimer"])
        first.stop()
        assert _wait_until(lambda: not client.connected)
        assert len(warnings) == 1 and "lost the connection" in warnings[0]
        client.split(game_time_ms=5_000)  # while LiveSplit is down
        time.sleep(0.3)
        assert len(warnings) == 1  # failed reconnects during the same outage stay quiet
        second = LineServer(port)
        try:
            assert _wait_until(lambda: second.received() == ["setgametime 0:00:05.000", "split"]), (
                second.received()
            )
            client.reset()
            assert _wait_until(lambda: second.received()[-1:] == ["reset"])
        finally:
            second.stop()
    finally:
        client.close()


def test_unreachable_livesplit_warns_once_and_never_slows_the_caller() -> None:
    port = _free_port()
    warnings: list[str] = []
    client = LiveSplitClient("127.0.0.1", port, warn=warnings.append, **FAST_RETRY)
    try:
        start = time.perf_counter()
        client.start_timer()
        for ms in range(1000):
            client.set_game_time_ms(ms)
            if ms % 100 == 0:
                client.split(game_time_ms=ms)
        elapsed_s = time.perf_counter() - start
        assert elapsed_s < 0.05, f"1000 calls took {elapsed_s * 1000:.1f} ms"
        time.sleep(0.5)  # a handful of retries
        assert len(warnings) == 1
        assert f"127.0.0.1:{port}" in warnings[0] and "not reachable" in warnings[0]
        assert not client.connected
        # consecutive game times collapsed: the 3 start lines (whose game time the first split
        # took over) + its split + 9 x (time, split) + the latest time
        assert client.pending == 3 + 1 + 9 * 2 + 1
    finally:
        begin = time.perf_counter()
        client.close()
        assert time.perf_counter() - begin < 0.5


def test_full_queue_drops_the_oldest_game_time_first() -> None:
    port = _free_port()
    client = LiveSplitClient("127.0.0.1", port, warn=lambda _m: None, queue_size=4, **FAST_RETRY)
    try:
        client.start_timer()  # starttimer, pausegametime, setgametime 0
        client.split()  # full now
        client.split(game_time_ms=1_000)  # drops "setgametime 0", then "setgametime 1"
        client.pause_game_time()  # drops the oldest command, "starttimer"
        assert client.pending == 4 and client.dropped_commands == 3
        late = LineServer(port)
        try:
            expected = ["pausegametime", "split", "split", "pausegametime"]
            assert _wait_until(lambda: late.received() == expected), late.received()
        finally:
            late.stop()
    finally:
        client.close()


def test_reset_discards_what_was_not_sent() -> None:
    port = _free_port()
    client = LiveSplitClient("127.0.0.1", port, warn=lambda _m: None, **FAST_RETRY)
    try:
        client.start_timer()
        client.split(game_time_ms=10)
        client.reset()
        client.start_timer()
        late = LineServer(port)
        try:
            expected = ["reset", "starttimer", "pausegametime", "setgametime 0:00:00.000"]
            assert _wait_until(lambda: late.received() == expected), late.received()
        finally:
            late.stop()
    finally:
        client.close()


def test_close_sends_what_is_queued_and_joins_quickly(server: LineServer) -> None:
    client = LiveSplitClient("127.0.0.1", server.port, warn=lambda _m: None)
    assert _wait_until(lambda: client.connected)
    client.split()
    begin = time.perf_counter()
    client.close()
    assert time.perf_counter() - begin < 0.5
    assert not client._thread.is_alive()
    assert _wait_until(lambda: server.received() == ["split"])
    client.split()  # after close: ignored, no error
    assert client.pending == 0


def test_close_while_retrying_is_quick() -> None:
    client = LiveSplitClient("127.0.0.1", _free_port(), warn=lambda _m: None)  # 0.5 s backoff
    time.sleep(0.05)
    begin = time.perf_counter()
    client.close()
    assert time.perf_counter() - begin < 0.3
    assert not client._thread.is_alive()


def test_from_config(server: LineServer) -> None:
    assert from_config(LiveSplitConfig(enabled=False)) is None
    client = from_config(
        LiveSplitConfig(enabled=True, host="127.0.0.1", port=server.port), warn=lambda _m: None
    )
    assert client is not None
    try:
        assert client.address == f"127.0.0.1:{server.port}"
        client.split()
        assert _wait_until(lambda: server.received() == ["split"])
    finally:
        client.close()


class SlammingServer:
    """Accepts every connection and closes it at once (finding 23): counts the connections."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.listener.accept()
                self.accepted += 1
                conn.close()

    def stop(self) -> None:
        self.listener.close()


def test_a_server_that_closes_at_once_gets_backoff_and_one_line() -> None:
    server = SlammingServer()
    lines: list[str] = []
    client = LiveSplitClient(
        "127.0.0.1", server.port, warn=lines.append, info=lines.append,
        backoff_min_s=0.01, backoff_max_s=0.08,
    )  # fmt: skip
    try:
        client.start_timer()
        time.sleep(0.5)
        # waits 0.01, 0.02, 0.04, then 0.08 s: at most about 4 + 0.5 / 0.08 attempts
        assert 2 <= client.attempts <= 12, client.attempts
        assert server.accepted <= client.attempts
        assert len(lines) <= 2, lines  # "lost the connection" (and at most one "connected")
        assert lines and "lost the connection" in lines[0]
    finally:
        client.close()
        server.stop()


def test_a_connection_that_lasts_ends_the_outage_and_resets_the_backoff() -> None:
    server = LineServer()
    lines: list[str] = []
    client = LiveSplitClient(
        "127.0.0.1", server.port, warn=lines.append, info=lines.append,
        backoff_min_s=0.02, backoff_max_s=0.1,
    )  # fmt: skip
    try:
        client.start_timer()
        assert _wait_until(lambda: server.received()[:1] == ["starttimer"])
        time.sleep(0.2)  # longer than stable_s (= backoff_max_s): a lasting connection
        port = server.port
        server.stop()
        assert _wait_until(lambda: len(lines) == 1)
        again = LineServer(port)
        try:
            client.split(game_time_ms=1)
            assert _wait_until(lambda: again.received()[-1:] == ["split"])
            assert _wait_until(lambda: len(lines) == 2)
            assert "lost the connection" in lines[0] and "connected" in lines[1]
        finally:
            again.stop()
    finally:
        client.close()


@pytest.mark.parametrize("host", [".", "a..b", "x" * 64 + ".example", "-bad", "a b", ""])
def test_hosts_the_socket_library_cannot_look_up_are_refused_up_front(host: str) -> None:
    with pytest.raises(ValueError, match="not a host name"):
        LiveSplitClient(host, 16834)


def test_a_failure_inside_the_thread_is_reported_once_and_ends_the_link(
    server: LineServer,
) -> None:
    lines: list[str] = []
    client = LiveSplitClient("127.0.0.1", server.port, warn=lines.append, info=lines.append)

    def broken_take() -> list[str]:
        raise RuntimeError("boom")

    client._take_all = broken_take  # type: ignore[method-assign]  # a bug inside the thread
    client.start_timer()
    assert _wait_until(lambda: len(lines) == 1)
    assert "stopped (RuntimeError: boom)" in lines[0] and lines[0].startswith("warning:")
    client.split()  # the game goes on calling: nothing queued, no more lines
    time.sleep(0.05)
    assert len(lines) == 1 and client.pending == 0
    client.close()


@pytest.mark.parametrize("host", [".", "a..b", "y" * 64, "a.-b", "é..x", "h" * 250 + ".com"])
def test_the_config_refuses_such_hosts_in_one_line(host: str) -> None:
    from engine.config import ConfigError, load_config

    with pytest.raises(ConfigError) as caught:
        load_config(None, [f'speedrun.livesplit.host="{host}"'])
    message = str(caught.value)
    assert "not a host name" in message and len(message.splitlines()) == 1
    assert len(message) < 300


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "::1", "my-pc.local.", "bücher.de"])
def test_the_config_accepts_names_and_addresses(host: str) -> None:
    from engine.config import load_config

    assert load_config(None, [f'speedrun.livesplit.host="{host}"']).speedrun.livesplit.host == host
