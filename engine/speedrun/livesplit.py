"""Drive LiveSplit's timer over its TCP Server protocol without ever slowing the game loop.

LiveSplit (the speedrun timer most runners use) listens, once its server is started (right click
-> Control -> Start TCP Server; default port 16834), for text commands on a TCP connection, each
ended by ``"\\r\\n"``. This client sends only commands that need no answer:

=====================  ==================================================================
``starttimer``         start the run (only when LiveSplit's timer is not running)
``split``              end the current segment
``reset``              reset the run
``pausegametime``      freeze LiveSplit's game-time clock (it then moves only when set)
``unpausegametime``    let LiveSplit's game-time clock run with real time again
``setgametime TIME``   set game time; ``TIME`` is ``[h:]m:ss.fff``-like. We always send
                       ``h:mm:ss.mmm`` from integer ms, e.g. ``0:01:02.345``
=====================  ==================================================================

(Sources: the LiveSplit.Server README's command list and LiveSplit's ``CommandServer`` /
``TimeSpanParser``, read on GitHub.) ``initgametime`` is *not* sent: LiveSplit's TCP server does
not know it (it logs "invalid command"); ``setgametime`` initializes game time by itself.

How the game time stays exact:
    :meth:`LiveSplitClient.start_timer` sends ``starttimer``, ``pausegametime`` and
    ``setgametime 0:00:00.000``: LiveSplit's game time starts at zero and never runs on its own.
    The game then owns it: :meth:`~LiveSplitClient.set_game_time_ms` (each frame is fine:
    consecutive updates waiting in the queue collapse into the latest) and
    :meth:`~LiveSplitClient.split` with ``game_time_ms`` (sets the exact IGT of the split, then
    splits). Compare against "Game Time" in LiveSplit. :meth:`~LiveSplitClient.resume_game_time`
    and :meth:`~LiveSplitClient.pause_game_time` are there for games that would rather let
    LiveSplit's clock run between updates.

Never blocking the game:
    Every public method only appends a line to a bounded in-memory queue under a lock held for a
    few microseconds, and nudges the background thread. A daemon thread connects, sends and, when
    LiveSplit is not running or the connection drops, retries with a backoff from
    ``backoff_min_s`` (0.5 s) doubling to ``backoff_max_s`` (5 s). So LiveSplit may be started
    before the game, after it, or restarted in the middle.

    The backoff is only reset by a connection that *stays* open for ``stable_s`` (default: the
    longest backoff). A server that accepts and closes at once (something else on the port, a
    proxy with nothing behind it) is therefore retried with the same growing waits as one that
    refuses, never in a tight loop: about ``log2(max/min) + elapsed / backoff_max_s`` attempts.

What is sent on (re)connect:
    Whatever is queued, in order. :meth:`~LiveSplitClient.reset` empties the queue and queues
    ``reset``: what happened before a reset no longer matters. So a LiveSplit started in the
    middle of a run receives the run so far (``starttimer``, the game time at each split and the
    split, the latest game time) and ends up with the right splits in game time; its real-time
    splits are compressed into the catch-up moment, which is unavoidable. After a dropped
    connection only the commands queued while disconnected are sent, assuming LiveSplit kept its
    state (its server was stopped and started again, or the network hiccupped). If LiveSplit
    itself was restarted mid-run, its run is gone; reset in the game to resynchronize.

    A connection can die silently: commands written in the moment between LiveSplit quitting
    and this client noticing (it watches the socket, so within milliseconds) are lost with it.

    The queue holds :data:`DEFAULT_QUEUE_SIZE` commands. When it is full, the oldest
    ``setgametime`` is dropped first (a later one supersedes it), else the oldest command; the
    count is in :attr:`LiveSplitClient.dropped_commands`. A send that fails puts its commands back
    at the front to be sent again on the next connection.

Messages:
    An *outage* lasts from the first failure until a connection has stayed open ``stable_s``.
    One line through ``warn`` when it starts (the first attempt that fails, naming
    ``host:port`` and the error, or the loss of a connection), and at most one through ``info``
    when a connection succeeds in it. Nothing else, however many retries the outage takes.
    Anything else going wrong in the background thread (a bug, an exotic error) is reported in
    one ``warn`` line and ends the link; the game goes on without LiveSplit.

    A host name the socket library cannot even look up (``.``, ``a..b``, a part longer than 63
    characters) is refused earlier, when the config is loaded
    (:func:`engine.config.sections.host_problem`: one line, exit status 2), and by this class's
    constructor (``ValueError``).

Typical use::

    livesplit = from_config(config.speedrun.livesplit)    # None when disabled
    if livesplit:
        livesplit.start_timer()
        ...
        livesplit.set_game_time_ms(timer.igt_ms)           # every frame
        ...
        livesplit.split(game_time_ms=result.cumulative_ms)  # at a level exit
        ...
        livesplit.close()                                   # on quit

This module is pure: it imports only the standard library and :mod:`engine.config`.
"""

from __future__ import annotations

import contextlib
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable

from engine.config import LiveSplitConfig
from engine.config.sections import host_problem

DEFAULT_QUEUE_SIZE = 1024
_SET_GAME_TIME = "setgametime "

Log = Callable[[str], None]


def _print_line(message: str) -> None:
    print(message, file=sys.stderr)


def livesplit_time_text(ms: int) -> str:
    """Format whole milliseconds as LiveSplit parses them: ``h:mm:ss.mmm`` (``0:01:02.345``)."""
    if ms < 0:
        raise ValueError(f"game time must be >= 0 ms, got {ms}")
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1_000)
    return f"{hours}:{minutes:02d}:{seconds:02d}.{millis:03d}"


class LiveSplitClient:
    """A fire-and-forget LiveSplit Server client with a background sender thread.

    Args:
        host: Where LiveSplit listens (e.g. ``"localhost"``).
        port: Its TCP port (LiveSplit's default is 16834).
        warn: Receives warning lines (default: print to stderr).
        info: Receives the "connected" line after a failure (default: print to stderr).
        queue_size: Most commands kept while LiveSplit is unreachable.
        connect_timeout_s: Limit on one connection attempt (in the background thread).
        backoff_min_s: First wait between failed attempts.
        backoff_max_s: Longest wait between attempts.
        stable_s: How long a connection must stay open to end an outage (and reset the
            backoff); default ``backoff_max_s``.

    Raises:
        ValueError: ``host`` is not a host name or address (see :func:`host_problem`), or a
            bad ``queue_size`` or backoff.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        warn: Log = _print_line,
        info: Log = _print_line,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        connect_timeout_s: float = 1.0,
        backoff_min_s: float = 0.5,
        backoff_max_s: float = 5.0,
        stable_s: float | None = None,
    ) -> None:
        problem = host_problem(host)
        if problem is not None:
            raise ValueError(f"LiveSplit host {host[:80]!r} is not a host name: {problem}")
        if queue_size < 1:
            raise ValueError(f"queue_size must be >= 1, got {queue_size}")
        if not 0 < backoff_min_s <= backoff_max_s:
            raise ValueError("need 0 < backoff_min_s <= backoff_max_s")
        self.host = host
        self.port = port
        self.queue_size = queue_size
        self.connect_timeout_s = connect_timeout_s
        self.backoff_min_s = backoff_min_s
        self.backoff_max_s = backoff_max_s
        self.stable_s = backoff_max_s if stable_s is None else stable_s
        #: Connection attempts made so far (for tests and the curious).
        self.attempts = 0
        self._warn = warn
        self._info = info
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()
        self._closing = False
        self._connected = False
        self.dropped_commands = 0
        # Self-pipe: the game thread writes a byte to wake the sender out of select().
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._wake_writer.setblocking(False)
        self._thread = threading.Thread(
            target=self._run_reporting, name=f"livesplit-{host}:{port}", daemon=True
        )
        self._thread.start()

    # -- the game's side: queue and return -----------------------------------------------------

    @property
    def address(self) -> str:
        """``host:port``."""
        return f"{self.host}:{self.port}"

    @property
    def connected(self) -> bool:
        """A connection to LiveSplit is currently open."""
        return self._connected

    @property
    def pending(self) -> int:
        """Commands waiting to be sent."""
        with self._lock:
            return len(self._queue)

    def start_timer(self) -> None:
        """Start LiveSplit's run with game time at zero and owned by the game."""
        self._put("starttimer", "pausegametime", _SET_GAME_TIME + livesplit_time_text(0))

    def split(self, game_time_ms: int | None = None) -> None:
        """Split; with ``game_time_ms``, set that exact game time first."""
        if game_time_ms is None:
            self._put("split")
        else:
            self._put(_SET_GAME_TIME + livesplit_time_text(game_time_ms), "split")

    def reset(self) -> None:
        """Reset LiveSplit's run; anything not yet sent is discarded."""
        with self._lock:
            self._queue.clear()
        self._put("reset")

    def pause_game_time(self) -> None:
        """Freeze LiveSplit's game-time clock."""
        self._put("pausegametime")

    def resume_game_time(self) -> None:
        """Let LiveSplit's game-time clock run again (``unpausegametime``)."""
        self._put("unpausegametime")

    def set_game_time_ms(self, game_time_ms: int) -> None:
        """Set LiveSplit's game time to ``game_time_ms`` whole milliseconds."""
        self._put(_SET_GAME_TIME + livesplit_time_text(game_time_ms))

    def close(self, timeout_s: float = 1.0) -> None:
        """Send what is queued if connected, then stop the thread (waits up to ``timeout_s``)."""
        with self._lock:
            self._closing = True
        self._wake()
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            self._wake_reader.close()
            self._wake_writer.close()

    def _put(self, *lines: str) -> None:
        with self._lock:
            if self._closing:
                return
            for line in lines:
                superseded = bool(self._queue) and self._queue[-1].startswith(_SET_GAME_TIME)
                if superseded and line.startswith(_SET_GAME_TIME):
                    self._queue[-1] = line  # a newer game time supersedes an unsent one
                    continue
                if len(self._queue) >= self.queue_size:
                    self._drop_one()
                self._queue.append(line)
        self._wake()

    def _drop_one(self) -> None:
        """Make room: drop the oldest ``setgametime``, else the oldest command (lock held)."""
        self.dropped_commands += 1
        for index, queued in enumerate(self._queue):
            if queued.startswith(_SET_GAME_TIME):
                del self._queue[index]
                return
        self._queue.popleft()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # a full or closed wake pipe: the thread is awake
            self._wake_writer.send(b"\0")

    # -- the sender thread ---------------------------------------------------------------------

    def _drain_wake(self) -> None:
        with contextlib.suppress(OSError):
            while self._wake_reader.recv(4096):
                pass

    def _take_all(self) -> list[str]:
        with self._lock:
            lines = list(self._queue)
            self._queue.clear()
            return lines

    def _put_back(self, lines: list[str]) -> None:
        with self._lock:
            self._queue.extendleft(reversed(lines))
            while len(self._queue) > self.queue_size:
                self._drop_one()

    def _connect(self) -> socket.socket:
        self.attempts += 1
        sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout_s)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(self.connect_timeout_s)  # bounds a sendall to a stalled LiveSplit
        return sock

    def _run_reporting(self) -> None:
        """The thread: :meth:`_run`, and one line if it ever fails (it then stops)."""
        try:
            self._run()
        except Exception as error:  # the thread must not die without a word
            self._connected = False
            with self._lock:
                self._closing = True  # nothing is queued any more
                self._queue.clear()
            self._warn(
                f"warning: the LiveSplit link to {self.address} stopped "
                f"({type(error).__name__}: {str(error)[:200]}); the game goes on without it"
            )

    def _run(self) -> None:
        sock: socket.socket | None = None
        backoff_s = self.backoff_min_s
        in_outage = False  # a failure was reported and no connection has lasted since
        announced = False  # the outage's "connected" line was printed
        opened_at = 0.0  # when ``sock`` connected
        stable = False  # ``sock`` has stayed open for stable_s
        while True:
            with self._lock:
                closing = self._closing
            if sock is None:
                if closing:
                    return
                try:
                    sock = self._connect()
                except (OSError, ValueError) as error:  # ValueError: UnicodeError from IDNA
                    if not in_outage:
                        self._warn(
                            f"warning: LiveSplit at {self.address} is not reachable ({error}); "
                            "retrying in the background"
                        )
                        in_outage = True
                    self._wait(None, backoff_s)
                    backoff_s = min(backoff_s * 2, self.backoff_max_s)
                    continue
                self._connected = True
                opened_at, stable = time.monotonic(), False
                if in_outage and not announced:
                    self._info(f"LiveSplit: connected to {self.address}")
                    announced = True
            lines = self._take_all()
            lost: object = None
            if lines:
                try:
                    sock.sendall("".join(line + "\r\n" for line in lines).encode("utf-8"))
                except OSError as error:
                    self._put_back(lines)
                    lost = error
            if lost is None and closing:
                self._drop(sock, None)
                return
            if lost is None:
                wait_s = None if stable else max(0.0, opened_at + self.stable_s - time.monotonic())
                if self._wait(sock, wait_s) and not self._still_open(sock):
                    lost = "closed by LiveSplit"
            if not stable and lost is None and time.monotonic() - opened_at >= self.stable_s:
                stable = True  # the outage is over: report the next failure, reset the waits
                in_outage = announced = False
                backoff_s = self.backoff_min_s
            if lost is None:
                continue
            self._drop(sock, None if in_outage else lost)
            sock = None
            in_outage = True
            if not stable:  # it closed again at once: wait as after a refused connection
                self._wait(None, backoff_s)
                backoff_s = min(backoff_s * 2, self.backoff_max_s)

    def _wait(self, sock: socket.socket | None, timeout_s: float | None) -> bool:
        """Sleep until woken by the game, ``sock`` is readable or ``timeout_s``; True if readable."""
        watched: list[socket.socket] = [self._wake_reader]
        if sock is not None:
            watched.append(sock)
        readable, _, _ = select.select(watched, [], [], timeout_s)
        if self._wake_reader in readable:
            self._drain_wake()
        return sock is not None and sock in readable

    def _still_open(self, sock: socket.socket) -> bool:
        """Read (and ignore) whatever LiveSplit sent; False when the connection has ended."""
        try:
            return bool(sock.recv(4096))
        except (TimeoutError, BlockingIOError):
            return True
        except OSError:
            return False

    def _drop(self, sock: socket.socket, error: object) -> None:
        """Close ``sock`` after a failure (warning with ``error`` unless it is None)."""
        if error is not None:  # said before ``connected`` turns False, so a reader sees both
            self._warn(f"warning: lost the connection to LiveSplit at {self.address} ({error})")
        with contextlib.suppress(OSError):
            sock.close()
        self._connected = False


def from_config(
    config: LiveSplitConfig, *, warn: Log = _print_line, info: Log = _print_line
) -> LiveSplitClient | None:
    """A client for ``config`` (``speedrun.livesplit``), or ``None`` when it is disabled."""
    if not config.enabled:
        return None
    return LiveSplitClient(config.host, config.port, warn=warn, info=info)
