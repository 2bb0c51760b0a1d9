"""A healthy stop's exceptions are stops, not failures (triage/read.py STOPPING, STOP_SAID): an exception raised in code
that runs only while a process stops (uvicorn's lifespan task cancelled at the event loop's close, multiprocessing's
queue feeder whose reader is gone, its atexit handler), or a cancellation after the server said it was stopping.  Each
was a failure before (APPLICATION `first_failure`, or `undetermined` for a consequence's type).  The same exception
anywhere else stays what it was, offline and live."""

from __future__ import annotations

from triage import Clock, attribute, read_lines
from triage.read import TracebackReader

# REAL: arcee-ai/fastmlx #14 (https://github.com/arcee-ai/fastmlx/issues/14), a Ctrl-C'd FastMLX server (uvicorn, two
# workers): "Shutting down", then the lifespan task's bare CancelledError
FASTMLX_14 = [
    "^CINFO:     Shutting down",
    "INFO:     Waiting for application shutdown.",
    "INFO:     Application shutdown complete.",
    "INFO:     Finished server process [7603]",
    'INFO:     127.0.0.1:61200 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO:     Shutting down",
    "INFO:     Finished server process [7602]",
    "ERROR:    Traceback (most recent call last):",
    '  File "/Users/stewart/anaconda3/lib/python3.11/site-packages/starlette/routing.py", line 741, in lifespan',
    "    await receive()",
    '  File "/Users/stewart/anaconda3/lib/python3.11/site-packages/uvicorn/lifespan/on.py", line 137, in receive',
    "    return await self.receive_queue.get()",
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    '  File "/Users/stewart/anaconda3/lib/python3.11/asyncio/queues.py", line 158, in get',
    "    await getter",
    "asyncio.exceptions.CancelledError",
    "",
    "INFO:     Stopping parent process [7600]",
]
# REAL: Kludex/uvicorn #1160 (https://github.com/Kludex/uvicorn/issues/1160, a Nuitka-compiled app on Windows: frames
# without their code lines, Windows paths), from its traceback's header on
UVICORN_1160 = [
    "ERROR:    Traceback (most recent call last):",
    '  File "C:\\Users\\darko\\AppData\\Local\\Temp\\ONC4D5~1\\starlette\\routing.py", line 624, in lifespan',
    '  File "C:\\Users\\darko\\AppData\\Local\\Temp\\ONC4D5~1\\uvicorn\\lifespan\\on.py", line 135, in receive',
    '  File "C:\\Users\\darko\\AppData\\Local\\Temp\\ONC4D5~1\\asyncio\\queues.py", line 166, in get',
    "asyncio.exceptions.CancelledError",
]
# REAL: jundot/omlx #1575 (https://github.com/jundot/omlx/pull/1575), Ctrl-C of an MLX server on uvicorn: "Finished
# server process", then asyncio.run's CancelledError (no lifespan frame: the stop said is what makes it one); the
# chained exception after it is cut from the quote
OMLX_1575 = [
    "INFO:     Application shutdown complete.",
    "INFO:     Finished server process [5029]",
    "Traceback (most recent call last):",
    '  File "/opt/homebrew/Cellar/python@3.14/3.14.5/Frameworks/Python.framework/Versions/3.14/lib/python3.14/asyncio/'
    'runners.py", line 127, in run',
    "    return self._loop.run_until_complete(task)",
    "           ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~^^^^^^",
    '  File "/opt/homebrew/Cellar/python@3.14/3.14.5/Frameworks/Python.framework/Versions/3.14/lib/python3.14/asyncio/'
    'base_events.py", line 719, in run_until_complete',
    "    return future.result()",
    "           ~~~~~~~~~~~~~^^",
    "asyncio.exceptions.CancelledError",
]
# REAL: MLOPTPSU/FedTorch #4 (https://github.com/MLOPTPSU/FedTorch/issues/4): multiprocessing's queue feeder thread
# printing its broken pipe, the training going on ("I still can get a result"; the authors: "does not affect the
# training result")
FEDTORCH_4 = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.8/multiprocessing/queues.py", line 245, in _feed',
    "    send_bytes(obj)",
    '  File "/usr/lib/python3.8/multiprocessing/connection.py", line 200, in send_bytes',
    "    self._send_bytes(m[offset:offset + size])",
    '  File "/usr/lib/python3.8/multiprocessing/connection.py", line 411, in _send_bytes',
    "    self._send(header + buf)",
    '  File "/usr/lib/python3.8/multiprocessing/connection.py", line 368, in _send',
    "    n = write(self._handle, buf)",
    "BrokenPipeError: [Errno 32] Broken pipe",
]
# REAL: saga-project/BigJob #157 (https://github.com/saga-project/BigJob/issues/157): multiprocessing's atexit handler
# failing as the interpreter tears down, "The install seems to be successful anyways"
BIGJOB_157 = [
    " Finished processing dependencies for BigJob==0.50-3-gd7c41ab",
    "Error in atexit._run_exitfuncs:",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python2.7/atexit.py", line 24, in _run_exitfuncs',
    "    func(*targs, **kargs)",
    '  File "/usr/lib/python2.7/multiprocessing/util.py", line 284, in _exit_function',
    "    info('process shutting down')",
    "TypeError: 'NoneType' object is not callable",
]
# REAL: vllm-project/vllm #7173 (https://github.com/vllm-project/vllm/issues/7173): a request's cancellation while the
# OpenAI server runs (uvicorn's "Exception in ASGI application"), its first traceback: no stop
VLLM_7173 = [
    'INFO:     IP:50290 - "POST /v1/completions HTTP/1.1" 200 OK',
    "ERROR:    Exception in ASGI application",
    "Traceback (most recent call last):",
    '  File "/opt/dlami/nvme/venv/lib/python3.10/site-packages/starlette/responses.py", line 265, in __call__',
    "    await wrap(partial(self.listen_for_disconnect, receive))",
    '  File "/opt/dlami/nvme/venv/lib/python3.10/site-packages/starlette/responses.py", line 261, in wrap',
    "    await func()",
    '  File "/opt/dlami/nvme/venv/lib/python3.10/site-packages/starlette/responses.py", line 238, in listen_for_disconnect',
    "    message = await receive()",
    '  File "/opt/dlami/nvme/venv/lib/python3.10/site-packages/uvicorn/protocols/http/httptools_impl.py", line 553, in '
    "receive",
    "    await self.message_event.wait()",
    '  File "/usr/lib/python3.10/asyncio/locks.py", line 214, in wait',
    "    await fut",
    "asyncio.exceptions.CancelledError: Cancelled by cancel scope 757f107d7cd0",
]

# pgjones/hypercorn #258 (https://github.com/pgjones/hypercorn/issues/258, copied from #240's comment
# https://github.com/pgjones/hypercorn/issues/240#issuecomment-2197794614): a Ctrl-C of hypercorn's `serve` with its
# DispatcherMiddleware, "when the server exits, it raises a `CancelledError`".  REAL: its traceback from the header to
# the lifespan task's frame; the copy read cut the frames after it, and the exception line is CONSTRUCTED from the
# issue's words (its title's `CancelledError`, as Python 3.12 prints asyncio's)
HYPERCORN_258 = [
    "Traceback (most recent call last):",
    '  File "<frozen runpy>", line 198, in _run_module_as_main',
    '  File "<frozen runpy>", line 88, in _run_code',
    '  File ".../__main__.py", line 69, in <module>',
    "    asyncio.run(serve(dispatcher, config))",
    '  File "/usr/lib/python3.12/asyncio/runners.py", line 194, in run',
    "    return runner.run(main)",
    "           ^^^^^^^^^^^^^^^^",
    '  File "/usr/lib/python3.12/asyncio/runners.py", line 118, in run',
    "    return self._loop.run_until_complete(task)",
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    '  File "/usr/lib/python3.12/asyncio/base_events.py", line 664, in run_until_complete',
    "    return future.result()",
    "           ^^^^^^^^^^^^^^^",
    '  File ".../.venv/lib/python3.12/site-packages/hypercorn/asyncio/__init__.py", line 44, in serve',
    "    await worker_serve(",
    '  File ".../.venv/lib/python3.12/site-packages/hypercorn/asyncio/run.py", line 181, in worker_serve',
    "    await lifespan_task",
    '  File ".../.venv/lib/python3.12/site-packages/hypercorn/asyncio/lifespan.py", line 55, in handle_lifespan',
    "    await self.app(",
    "asyncio.exceptions.CancelledError",
]
# REAL: apache/tooling-trusted-releases #320 (https://github.com/apache/tooling-trusted-releases/issues/320), a Quart
# app on hypercorn whose lifespan shutdown failed: its traceback's end as the copy read has it (from hypercorn's
# app wrapper, which handle_lifespan awaits, on)
TOOLING_320_TAIL = [
    '  File "/home/akm/a/src/org/apache/tooling-trusted-releases/.venv/lib/python3.13/site-packages/hypercorn/'
    'app_wrappers.py", line 34, in __call__',
    "    await self.app(scope, receive, send)",
    '  File "/home/akm/a/src/org/apache/tooling-trusted-releases/.venv/lib/python3.13/site-packages/quart/app.py", '
    "line 1735, in __call__",
    "    await self.asgi_app(scope, receive, send)",
    '  File "/home/akm/a/src/org/apache/tooling-trusted-releases/.venv/lib/python3.13/site-packages/quart/app.py", '
    "line 1761, in asgi_app",
    "    await asgi_handler(receive, send)",
    '  File "/home/akm/a/src/org/apache/tooling-trusted-releases/.venv/lib/python3.13/site-packages/quart/asgi.py", '
    "line 384, in __call__",
    "    await send(",
    "    ...<4 lines>...",
    "    )",
    '  File "/home/akm/a/src/org/apache/tooling-trusted-releases/.venv/lib/python3.13/site-packages/hypercorn/asyncio/'
    'lifespan.py", line 122, in asgi_send',
    '    raise LifespanFailureError("shutdown", message.get("message", ""))',
    "hypercorn.utils.LifespanFailureError: Lifespan failure in shutdown. 'commit/svn'",
]
# REAL: danielniccoli/hypercornlitestarissue README.md (pgjones/hypercorn #315,
# https://github.com/pgjones/hypercorn/issues/315): a startup that timed out behind the DispatcherMiddleware, its
# CancelledError (in asyncio's wait_for, no lifespan frame) chained into hypercorn's LifespanTimeoutError; the first
# two tracebacks, then the last's end
HYPERCORN_315 = [
    "Traceback (most recent call last):",
    '  File "/root/.local/share/uv/python/cpython-3.13.6-linux-x86_64-gnu/lib/python3.13/asyncio/tasks.py", line 507, '
    "in wait_for",
    "    return await fut",
    "           ^^^^^^^^^",
    '  File "/root/.local/share/uv/python/cpython-3.13.6-linux-x86_64-gnu/lib/python3.13/asyncio/locks.py", line 213, '
    "in wait",
    "    await fut",
    "asyncio.exceptions.CancelledError",
    "",
    "The above exception was the direct cause of the following exception:",
    "",
    "Traceback (most recent call last):",
    '  File "/code/hypercornlitestarissue/.venv/lib/python3.13/site-packages/hypercorn/asyncio/lifespan.py", line 94, '
    "in wait_for_startup",
    "    await asyncio.wait_for(self.startup.wait(), timeout=self.config.startup_timeout)",
    '  File "/root/.local/share/uv/python/cpython-3.13.6-linux-x86_64-gnu/lib/python3.13/asyncio/tasks.py", line 506, '
    "in wait_for",
    "    async with timeouts.timeout(timeout):",
    "               ~~~~~~~~~~~~~~~~^^^^^^^^^",
    '  File "/root/.local/share/uv/python/cpython-3.13.6-linux-x86_64-gnu/lib/python3.13/asyncio/timeouts.py", line '
    "116, in __aexit__",
    "    raise TimeoutError from exc_val",
    "TimeoutError",
    "",
    "The above exception was the direct cause of the following exception:",
    "",
    "Traceback (most recent call last):",
    '  File "/code/hypercornlitestarissue/.venv/lib/python3.13/site-packages/hypercorn/asyncio/run.py", line 84, in '
    "worker_serve",
    "    await lifespan.wait_for_startup()",
    '  File "/code/hypercornlitestarissue/.venv/lib/python3.13/site-packages/hypercorn/asyncio/lifespan.py", line 96, '
    "in wait_for_startup",
    '    raise LifespanTimeoutError("startup") from error',
    "hypercorn.utils.LifespanTimeoutError: Timeout whilst awaiting startup. Your application may not support the ASGI "
    "Lifespan protocol correctly, alternatively the startup_timeout configuration is incorrect.",
]


def exceptions(lines: list[str]) -> list[tuple]:
    return [(e.details["exception"], e.severity, e.details.get("stopped"))
            for e in read_lines(lines, "server.log", Clock()) if e.kind == "exception"]


def test_a_servers_lifespan_cancelled_at_its_stop_is_no_failure():
    """fastmlx #14 was an APPLICATION incident rooted at the CancelledError; uvicorn #1160's Windows frames likewise."""
    assert exceptions(FASTMLX_14) == [("asyncio.exceptions.CancelledError", "warning", "asgi_lifespan")]
    assert attribute(list(read_lines(FASTMLX_14, "server.log", Clock()))) == []
    assert exceptions(UVICORN_1160) == [("asyncio.exceptions.CancelledError", "warning", "asgi_lifespan")]
    assert attribute(list(read_lines(UVICORN_1160, "server.log", Clock()))) == []


def test_hypercorns_lifespan_cancelled_at_its_stop_is_no_failure():
    """hypercorn #258 was an APPLICATION incident rooted at the CancelledError; its lifespan task's other failures
    (tooling-trusted-releases #320's LifespanFailureError in that task, SYNTHETIC: #258's frames then #320's; #315's
    startup timeout, REAL) stay failures."""
    assert exceptions(HYPERCORN_258) == [("asyncio.exceptions.CancelledError", "warning", "hypercorn_lifespan")]
    assert attribute(list(read_lines(HYPERCORN_258, "server.log", Clock()))) == []
    assert TracebackReader().read(HYPERCORN_258) == []
    failed = [*HYPERCORN_258[:20], *TOOLING_320_TAIL]
    assert exceptions(failed) == [("hypercorn.utils.LifespanFailureError", "error", None)]
    assert exceptions(HYPERCORN_315) == [("asyncio.exceptions.CancelledError", "error", None),
                                         ("TimeoutError", "error", None),
                                         ("hypercorn.utils.LifespanTimeoutError", "error", None)]
    assert [i.category for i in attribute(list(read_lines(HYPERCORN_315, "server.log", Clock())))] == ["application"]

def test_a_cancellation_after_the_server_said_it_stopped_is_no_failure():
    """omlx #1575: no teardown frame, but "Finished server process" before it (was APPLICATION)."""
    assert exceptions(OMLX_1575) == [("asyncio.exceptions.CancelledError", "warning", "stop_said")]
    assert attribute(list(read_lines(OMLX_1575, "server.log", Clock()))) == []


def test_multiprocessings_feeder_and_exit_handler_errors_are_no_failure():
    """FedTorch #4's feeder broken pipe was `undetermined` (a consequence's type); BigJob #157's atexit TypeError was
    APPLICATION."""
    assert exceptions(FEDTORCH_4) == [("BrokenPipeError", "warning", "queue_feeder")]
    assert attribute(list(read_lines(FEDTORCH_4, "train.log", Clock()))) == []
    assert exceptions(BIGJOB_157) == [("TypeError", "warning", "exit_function")]
    assert attribute(list(read_lines(BIGJOB_157, "train.log", Clock()))) == []


def test_the_same_exceptions_elsewhere_stay_failures():
    """SYNTHETIC variants of the real lines above: the lifespan frame removed (a task's cancellation with no stop
    said: as before), the feeder's broken pipe replaced by a pickling error (the item lost: a program's bug), the stop
    said by another writer (rank 1's) than the one cancelled; and vLLM #7173's cancellation (REAL) without the line of
    uvicorn's request handler before it: each stays the failure it was."""
    bare = [FASTMLX_14[7], *FASTMLX_14[13:16]]
    assert exceptions(bare) == [("asyncio.exceptions.CancelledError", "error", None)]
    pickling = [*FEDTORCH_4[:3], "TypeError: cannot pickle '_thread.lock' object"]
    assert exceptions(pickling) == [("TypeError", "error", None)]
    other = ["[rank1]: " + OMLX_1575[1], *("[rank0]: " + line for line in OMLX_1575[2:])]
    assert exceptions(other) == [("asyncio.exceptions.CancelledError", "error", None)]
    # vLLM #7173's cancellation without uvicorn's "Exception in ASGI application" before it (its request's handler:
    # no failure, tests/triage/test_triage_requests.py)
    assert exceptions(VLLM_7173[2:]) == [("asyncio.exceptions.CancelledError", "error", None)]
    # the stop said long before (past TRACEBACK_LINES) covers no later cancellation
    assert exceptions([OMLX_1575[1], *["INFO:     serving"] * 401, *OMLX_1575[2:]]) == [
        ("asyncio.exceptions.CancelledError", "error", None)]


def test_a_stop_is_read_live_as_offline():
    """The agent's pod-log reader (TracebackReader, a window opened at a STOP_SAID line or a traceback's) reports
    none of them as a failure, the vLLM request's cancellation still."""
    for lines in (FASTMLX_14, OMLX_1575, FEDTORCH_4, BIGJOB_157):
        assert TracebackReader().read(lines) == []
    assert [said["exception"] for _, said, _ in TracebackReader().read(VLLM_7173[2:])] == [
        "asyncio.exceptions.CancelledError"]


def test_what_a_server_says_when_told_to_stop():
    """REAL lines: uvicorn's (fastmlx #14 above, and its "^C" echo before it), gunicorn's worker's (Kludex/uvicorn #464,
    https://github.com/Kludex/uvicorn/issues/464) are a stop said; its startup's and a request's lines none."""
    from triage.read import _STOP_SAID
    said = [FASTMLX_14[0], FASTMLX_14[3], FASTMLX_14[5], OMLX_1575[1],
            "[2019-10-31 09:59:00 -0400] [15903] [INFO] Worker exiting (pid: 15903)"]
    assert all(_STOP_SAID.search(line) for line in said)
    assert not any(_STOP_SAID.search(line) for line in (FASTMLX_14[1], FASTMLX_14[4], VLLM_7173[1],
                                                          "[2022-07-10 23:49:12 +0900] [63820] [INFO] Booting worker with pid: 63820"))
