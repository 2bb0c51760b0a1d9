"""A serving pod's traceback of one request, logged by the handler that caught it and answered it (uvicorn's
"Exception in ASGI application", hypercorn's "Error in ASGI Framework", vLLM's "Error in preprocessing prompt inputs",
text-generation-inference's "Method Prefill encountered an error.": triage/read.py REQUEST_HANDLED), is no failure of the server, which goes on serving: a client gone mid-stream, a prompt
longer than the model's context.  Its whole chain is that request's (CAUGHT_CHAINED).  Each was a failure before (an
APPLICATION incident, or `undetermined` for a chain's consequence), offline and live.  The server's own death caught
there (vLLM's EngineDeadError, a CUDA error) stays a failure (CAUGHT_FATAL, the parsers' kinds)."""

from __future__ import annotations

from triage import Clock, attribute, read_lines
from triage.read import TracebackReader

from tests.triage.test_triage_stops import VLLM_7173

# REAL: basetenlabs/truss #476 (https://github.com/basetenlabs/truss/issues/476), "if a client disconnects midway
# through a request": uvicorn's handler's line, then two chained tracebacks (the third, run_asgi's, is cut in the copy
# read: left out)
TRUSS_476 = [
    "Exception in ASGI application",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.10/dist-packages/anyio/streams/memory.py", line 98, in receive',
    "    return self.receive_nowait()",
    '  File "/usr/local/lib/python3.10/dist-packages/anyio/streams/memory.py", line 93, in receive_nowait',
    "    raise WouldBlock",
    "anyio.WouldBlock",
    "",
    "During handling of the above exception, another exception occurred:",
    "",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.10/dist-packages/starlette/middleware/base.py", line 78, in call_next',
    "    message = await recv_stream.receive()",
    '  File "/usr/local/lib/python3.10/dist-packages/anyio/streams/memory.py", line 118, in receive',
    "    raise EndOfStream",
    "anyio.EndOfStream",
]
# REAL: vllm-project/vllm PR #21391 (https://github.com/vllm-project/vllm/pull/21391), the server's log of a request
# its benchmark sent too long: the health probe, then vLLM's handler's line and the first frames of its traceback
# (the rest cut in the copy read); and ruipeterpan/specreason #4 (https://github.com/ruipeterpan/specreason/issues/4),
# that traceback's last line as vLLM 0.8 prints it.  SYNTHETIC: the two joined, #4's line ending #21391's frames
VLLM_21391 = [
    "INFO:     Started server process [6434]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
    'INFO:     127.0.0.1:34636 - "GET /health HTTP/1.1" 200 OK',
    "ERROR 07-22 08:51:06 [serving_completion.py:131] Error in preprocessing prompt inputs",
    "ERROR 07-22 08:51:06 [serving_completion.py:131] Traceback (most recent call last):",
    'ERROR 07-22 08:51:06 [serving_completion.py:131]   File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/'
    'openai/serving_completion.py", line 123, in create_completion',
    "ERROR 07-22 08:51:06 [serving_completion.py:131]     request_prompts, engine_prompts = await "
    "self._preprocess_completion(",
]
SPECREASON_4 = ("ERROR 05-08 21:27:27 [serving_chat.py:198] ValueError: This model's maximum context length is 8192 "
                "tokens. However, you requested 8203 tokens (7691 in the messages, 512 in the completion). Please "
                "reduce the length of the messages or completion.")


def exceptions(lines: list[str]) -> list[tuple]:
    return [(e.details.get("exception"), e.kind, e.severity)
            for e in read_lines(lines, "server.log", Clock()) if e.severity in ("error", "critical")]


def assert_handled(lines: list[str], live_from: int = 0) -> None:
    """No failure in `lines`: no exception offline, no incident, and nothing the live reader publishes of the window
    opened at `live_from` (a handler's line or before it)."""
    assert exceptions(lines) == []
    assert attribute(list(read_lines(lines, "server.log", Clock()))) == []
    assert TracebackReader().read(lines[live_from:]) == []


def test_a_request_uvicorn_caught_is_no_failure():
    """vLLM #7173: the CancelledError of a client gone mid-stream under uvicorn's handler (was: APPLICATION)."""
    assert_handled(VLLM_7173)


def test_a_caught_requests_chain_is_the_same_handled_exception():
    """truss #476: anyio's WouldBlock, then EndOfStream chained after it (was: APPLICATION, the WouldBlock, and its
    consequence); the same chain without the handler's line stays a failure."""
    assert_handled(TRUSS_476)
    assert [e[0] for e in exceptions(TRUSS_476[1:])] == ["anyio.WouldBlock", "anyio.EndOfStream"]


def test_a_prompt_vllm_rejected_is_no_failure():
    """PR #21391's server with specreason #4's ValueError (was: APPLICATION, the ValueError); its frames past
    CAUGHT_AHEAD of another announcement stay read."""
    lines = [*VLLM_21391, SPECREASON_4]
    assert_handled(lines, live_from=4)
    assert [e[0] for e in exceptions([*VLLM_21391[5:], SPECREASON_4])] == ["ValueError"]


def test_the_servers_death_a_handler_caught_stays_a_failure():
    """SYNTHETIC endings of vLLM #7173's request (its handler's line and frames REAL): vLLM's engine dead (V1's
    EngineDeadError, its message as vllm/v1/engine/exceptions.py words it; V0's AsyncEngineDeadError) and a CUDA error
    stay what they are without the handler."""
    frames = VLLM_7173[:-1]
    dead = "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for " \
           "the root cause."
    for end in (dead, "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.",
                "RuntimeError: CUDA error: an illegal memory access was encountered"):
        assert exceptions([*frames, end]) == exceptions([*frames[2:], end]) != [], end
    assert [said["exception"] for _, said, _ in TracebackReader().read([*frames, dead])] == [
        "vllm.v1.engine.exceptions.EngineDeadError"]


# REAL: vllm-project/vllm-ascend #10376 (https://github.com/vllm-project/vllm-ascend/issues/10376), a vLLM 0.20 server's
# metrics probe answered, then its chat streaming handler's line and the first frames of a tool parser's failure on one
# request's output (the rest cut in the copy read: left out).  SYNTHETIC ending: the exception vllm-project/vllm #36849
# (https://github.com/vllm-project/vllm/issues/36849) names for the same handler's tool parser ("IndexError: list index
# out of range"), behind #10376's header
VLLM_ASCEND_10376 = [
    '(APIServer pid=58284) INFO:     172.30.8.42:41346 - "GET /metrics HTTP/1.1" 200 OK',
    "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272] Error in chat completion stream generator.",
    "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272] Traceback (most recent call last):",
    '(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272]   File "/vllm-workspace/vllm/vllm/entrypoints/openai/'
    'chat_completion/serving.py", line 1005, in chat_completion_stream_generator',
    "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272]     delta_message = parser.parse_delta(",
    "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272]                     ^^^^^^^^^^^^^^^^^^^",
    '(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272]   File "/vllm-workspace/vllm/vllm/parser/'
    'abstract_parser.py", line 631, in parse_delta',
    "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272]     delta_message = self.extract_tool_calls_streaming(",
    "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272]                     "
    "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
]
INDEX_ERROR = "(APIServer pid=58284) ERROR 06-09 14:11:06 [serving.py:1272] IndexError: list index out of range"
# REAL: vllm-project/vllm-ascend #629 (https://github.com/vllm-project/vllm-ascend/issues/629), verbatim: a vLLM 0.8.4
# server whose engine process died; the next streaming request's handler logs the engine's death (MQEngineDeadError)
VLLM_ASCEND_629 = [
    "ERROR 04-23 17:13:13 [client.py:305] RuntimeError('Engine process (pid 402494) died.')",
    "ERROR 04-23 17:13:13 [client.py:305] NoneType: None",
    "ERROR 04-23 17:13:23 [serving_chat.py:885] Error in chat completion stream generator.",
    "ERROR 04-23 17:13:23 [serving_chat.py:885] Traceback (most recent call last):",
    'ERROR 04-23 17:13:23 [serving_chat.py:885]   File "/usr/local/lib64/python3.11/site-packages/vllm/entrypoints/'
    'openai/serving_chat.py", line 487, in chat_completion_stream_generator',
    "ERROR 04-23 17:13:23 [serving_chat.py:885]     async for res in result_generator:",
    'ERROR 04-23 17:13:23 [serving_chat.py:885]   File "/usr/local/lib64/python3.11/site-packages/vllm/engine/'
    'multiprocessing/client.py", line 664, in _process_request',
    "ERROR 04-23 17:13:23 [serving_chat.py:885]     raise request_output",
    "ERROR 04-23 17:13:23 [serving_chat.py:885] vllm.engine.multiprocessing.MQEngineDeadError: Engine loop is not "
    "running. Inspect the stacktrace to find the original error: RuntimeError('Engine process (pid 402494) died.').",
]
# REAL: aio-libs/aiohttp #2644 (https://github.com/aio-libs/aiohttp/issues/2644), verbatim: aiohttp's server logging a
# request it could not parse ("occasionally I see the following error pop up"), the server serving on
AIOHTTP_2644 = [
    "Error handling request",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.5/dist-packages/aiohttp/web_protocol.py", line 271, in data_received',
    "    messages, upgraded, tail = self._request_parser.feed_data(data)",
    '  File "aiohttp/_http_parser.pyx", line 295, in aiohttp._http_parser.HttpParser.feed_data',
    "aiohttp.http_exceptions.BadStatusLine: invalid HTTP method",
]
# REAL: home-assistant/core #5007 (https://github.com/home-assistant/core/issues/5007), verbatim: aiohttp's server under
# Home Assistant's log format, a request cancelled, then the next request's error line
HASS_5007 = [
    "16-12-19 10:09:39 aiohttp.server: Error handling request",
    "Traceback (most recent call last):",
    '  File "/home/hass/.homeassistant/deps/aiohttp/web_server.py", line 61, in handle_request',
    "    resp = yield from self._handler(request)",
    '  File "/home/hass/.homeassistant/deps/aiohttp/web.py", line 249, in _handle',
    "    resp = yield from handler(request)",
    '  File "/usr/lib/python3.4/asyncio/coroutines.py", line 143, in coro',
    "    res = yield from res",
    '  File "/usr/lib/python3.4/asyncio/coroutines.py", line 143, in coro',
    "    res = yield from res",
    '  File "/srv/hass/hass_venv/lib/python3.4/site-packages/homeassistant/components/http/__init__.py", line 427, in '
    "handle",
    "    result = yield from result",
    '  File "/srv/hass/hass_venv/lib/python3.4/site-packages/homeassistant/components/api.py", line 123, in get',
    "    payload = yield from to_write.get()",
    '  File "/usr/lib/python3.4/asyncio/queues.py", line 186, in get',
    "    return (yield from waiter)",
    '  File "/usr/lib/python3.4/asyncio/futures.py", line 388, in __iter__',
    "    yield self  # This tells Task to wait for completion.",
    '  File "/usr/lib/python3.4/asyncio/tasks.py", line 286, in _wakeup',
    "    value = future.result()",
    '  File "/usr/lib/python3.4/asyncio/futures.py", line 269, in result',
    "    raise CancelledError",
    "concurrent.futures._base.CancelledError",
    "16-12-19 10:09:53 aiohttp.server: Error handling request",
]


def test_a_request_vllms_stream_generator_caught_is_no_failure():
    """vllm-ascend #10376's server with #36849's IndexError (was: APPLICATION, the IndexError), offline and live; the
    same frames without the handler's line stay a failure."""
    lines = [*VLLM_ASCEND_10376, INDEX_ERROR]
    assert_handled(lines, live_from=1)
    assert [e[0] for e in exceptions([*VLLM_ASCEND_10376[2:], INDEX_ERROR])] == ["IndexError"]


def test_the_engines_death_a_stream_generator_caught_stays_a_failure():
    """vllm-ascend #629: the MQEngineDeadError vLLM's streaming handler logs stays the failure offline (CAUGHT_FATAL),
    as it is without the handler's line; live, as without it too, its witness saying it (WITNESSED_CONSEQUENCES: V0's
    MQEngineDeadError and AsyncEngineDeadError, was V1's EngineDeadError alone)."""
    assert exceptions(VLLM_ASCEND_629) == exceptions(VLLM_ASCEND_629[3:]) != []
    live = [(row, said) for row, said, _ in TracebackReader().read(VLLM_ASCEND_629[2:])]
    assert live == [(row, said) for row, said, _ in TracebackReader().read(VLLM_ASCEND_629[3:])]
    assert [(said["exception"], said.get("consequence")) for _, said in live] == [
        ("vllm.engine.multiprocessing.MQEngineDeadError", True)]


def test_a_request_aiohttps_server_caught_is_no_failure():
    """aiohttp #2644's bad request line and Home Assistant #5007's cancelled request (was: APPLICATION, the
    BadStatusLine / CancelledError), offline and live; without the handler's line they stay failures."""
    for lines in (AIOHTTP_2644, HASS_5007):
        assert_handled(lines)
        assert exceptions(lines[1:]) != [], lines[0]


def test_a_pods_log_of_requests_its_handlers_caught_publishes_nothing(tmp_path):
    """The agent's live reading of a pod's log (agent/sources/podlogs.py, as tests/agent/test_live_exceptions.py
    drives it): the handlers' lines open the windows read, so the requests they caught publish no exception (was: the
    IndexError, the BadStatusLine, the CancelledError); vllm-ascend #629's engine death reads as without its handler."""
    from tests.agent.test_live_exceptions import _exceptions, _source

    for i, lines in enumerate(([*VLLM_ASCEND_10376, INDEX_ERROR], AIOHTTP_2644, HASS_5007)):
        src, _ = _source(tmp_path / f"pods{i}", lines)
        assert _exceptions(src.poll()) == [], lines[0]
    src, _ = _source(tmp_path / "dead", VLLM_ASCEND_629)
    bare, _ = _source(tmp_path / "bare", VLLM_ASCEND_629[3:])
    assert [e[2] for e in _exceptions(src.poll())] == [e[2] for e in _exceptions(bare.poll())]


# REAL: huggingface/text-generation-inference #2310 (https://github.com/huggingface/text-generation-inference/issues/2310),
# verbatim: a 2.x server's router failing one batch's request, then the shard's interceptor logging the Prefill it caught
# and the first frames of its traceback (the rest cut in the copy read: left out); the server served on
TGI_2310 = [
    "2024-08-01T17:14:52.447085Z ERROR batch{batch_size=1}:prefill:prefill{id=79 size=1}:prefill{id=79 size=1}: "
    "text_generation_client: router/client/src/lib.rs:46: Server error: ",
    "2024-08-01T17:14:52.447653Z ERROR chat_completions:generate:generate_stream:schedule:infer:send_error: "
    "text_generation_router::infer::v3::scheduler: router/src/infer/v3/scheduler.rs:493: Request failed during "
    "generation: Server error: ",
    "2024-08-01T17:14:52.644814Z ERROR text_generation_launcher: Method Prefill encountered an error.",
    "Traceback (most recent call last):",
    '  File "/opt/conda/bin/text-generation-server", line 8, in <module>',
    "    sys.exit(app())",
    '  File "/opt/conda/lib/python3.10/site-packages/typer/main.py", line 311, in __call__',
    "    return get_command(self)(*args, **kwargs)",
    '  File "/opt/conda/lib/python3.10/site-packages/click/core.py", line 1157, in __call__',
    "    return self.main(*args, **kwargs)",
    '  File "/opt/conda/lib/python3.10/site-packages/typer/core.py", line 778, in main',
    "    return _main(",
    '  File "/opt/conda/lib/python3.10/site-packages/typer/core.py", line 216, in _main',
    "    rv = self.invoke(ctx)",
]
# REAL: text-generation-inference #1643 (https://github.com/huggingface/text-generation-inference/issues/1643), verbatim:
# a 1.4.2 shard's Decode caught ("The container itself does not crash and can complete new text generation requests as
# normal"), the first frames of its traceback (the rest cut in the copy read: left out)
TGI_1643 = ["2024-03-19T10:10:21.647236Z ERROR text_generation_launcher: Method Decode encountered an error.",
            *TGI_2310[3:12]]  # its traceback's first frames, the same lines as #2310's
# SYNTHETIC ending: the exception text-generation-inference #165 (https://github.com/huggingface/text-generation-inference/
# issues/165) shows its router answering for one Prefill ("Server error: forward() got an unexpected keyword argument
# 'position_ids'", the interceptor's str(err)), as Python prints that TypeError
TGI_165_ERROR = "TypeError: forward() got an unexpected keyword argument 'position_ids'"
# REAL: sgl-project/sglang #3713 (https://github.com/sgl-project/sglang/issues/3713), verbatim: SGLang's scheduler dead
# of a CUDA error (its run_scheduler_process logs "Scheduler hit an exception: " with the traceback, then SIGQUITs the
# server; the line saying so is cut in the copy read: left out)
SGLANG_3713 = [
    "[2025-02-21 22:59:28 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1825, in run_scheduler_process',
    "    scheduler.event_loop_overlap()",
    '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/_contextlib.py", line 116, in decorate_context',
    "    return func(*args, **kwargs)",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 519, in event_loop_overlap',
    "    self.process_batch_result(tmp_batch, tmp_result)",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1116, in process_batch_result',
    "    self.process_batch_result_decode(batch, result)",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1308, in process_batch_result_decode',
    "    self.current_stream.synchronize()",
    '  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/streams.py", line 100, in synchronize',
    "    super().synchronize()",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
    "incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
]


def kinds(lines: list[str]) -> list[str]:
    return [e.kind for e in read_lines(lines, "server.log", Clock()) if e.severity in ("error", "critical")]


def test_a_batch_tgis_shard_caught_is_no_failure():
    """text-generation-inference's interceptor (triage/read.py TGI_HANDLED): #2310's Prefill and #1643's Decode, each
    ended by #165's TypeError (was: APPLICATION, the TypeError), offline and live; the same frames without the
    handler's line stay a failure."""
    for lines, live_from in (([*TGI_2310, TGI_165_ERROR], 2), ([*TGI_1643, TGI_165_ERROR], 0)):
        assert_handled(lines, live_from=live_from)
        assert [e[0] for e in exceptions(lines[live_from + 1:])] == ["TypeError"]


def test_a_gpu_fault_or_a_failed_warmup_tgis_shard_caught_stays_a_failure():
    """SYNTHETIC endings of #2310's Prefill: sglang #3713's CUDA error stays a cuda_error behind TGI's handler, as
    without it; a Warmup's failure (SYNTHETIC: the interceptor's words for the Warmup method), which ends the launcher,
    stays the exception it was."""
    cuda = SGLANG_3713[13:]
    assert kinds([*TGI_2310, *cuda]) == kinds(cuda) == ["cuda_error"]
    assert [said.get("exception") for _, said, _ in TracebackReader().read([*TGI_2310[2:], *cuda])] == []
    warmup = ["2024-08-01T17:14:52.644814Z ERROR text_generation_launcher: Method Warmup encountered an error.",
              *TGI_2310[3:], TGI_165_ERROR]
    assert [e[0] for e in exceptions(warmup)] == ["TypeError"]
    assert [said["exception"] for _, said, _ in TracebackReader().read(warmup)] == ["TypeError"]


def test_sglangs_scheduler_death_stays_a_failure_of_its_kind(tmp_path):
    """sglang #3713: the scheduler's death of an illegal memory access is the cuda_error it says, offline (the
    incident's root) and live (the pod's Event), not an exception of the server's handlers."""
    from tests.agent.test_live_exceptions import _source

    incidents = attribute(list(read_lines(SGLANG_3713, "server.log", Clock())))
    assert [i.root.kind for i in incidents] == ["cuda_error"]
    src, _ = _source(tmp_path / "sglang", SGLANG_3713)
    assert [f.kind for _, f in src.poll() if f.severity in ("error", "critical")] == ["cuda_error"]


def test_a_pods_log_of_a_batch_tgi_caught_publishes_nothing(tmp_path):
    """The agent's live reading of a TGI pod's log (as test_a_pods_log_of_requests_its_handlers_caught_publishes_nothing):
    #2310's and #1643's handled batches publish no exception (was: the TypeError)."""
    from tests.agent.test_live_exceptions import _exceptions, _source

    for i, lines in enumerate(([*TGI_2310, TGI_165_ERROR], [*TGI_1643, TGI_165_ERROR])):
        src, _ = _source(tmp_path / f"tgi{i}", lines)
        assert _exceptions(src.poll()) == [], lines[0]
