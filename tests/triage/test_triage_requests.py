"""A serving pod's traceback of one request, logged by the handler that caught it and answered it (uvicorn's
"Exception in ASGI application", hypercorn's "Error in ASGI Framework", vLLM's "Error in preprocessing prompt inputs":
triage/read.py REQUEST_HANDLED), is no failure of the server, which goes on serving: a client gone mid-stream, a prompt
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


def test_a_request_uvicorn_caught_is_no_failure():
    """vLLM #7173: the CancelledError of a client gone mid-stream under uvicorn's handler (was: APPLICATION)."""
    assert exceptions(VLLM_7173) == []
    assert attribute(list(read_lines(VLLM_7173, "server.log", Clock()))) == []
    assert TracebackReader().read(VLLM_7173) == []


def test_a_caught_requests_chain_is_the_same_handled_exception():
    """truss #476: anyio's WouldBlock, then EndOfStream chained after it (was: APPLICATION, the WouldBlock, and its
    consequence); the same chain without the handler's line stays a failure."""
    assert exceptions(TRUSS_476) == []
    assert attribute(list(read_lines(TRUSS_476, "server.log", Clock()))) == []
    assert TracebackReader().read(TRUSS_476) == []
    assert [e[0] for e in exceptions(TRUSS_476[1:])] == ["anyio.WouldBlock", "anyio.EndOfStream"]


def test_a_prompt_vllm_rejected_is_no_failure():
    """PR #21391's server with specreason #4's ValueError (was: APPLICATION, the ValueError); its frames past
    CAUGHT_AHEAD of another announcement stay read."""
    lines = [*VLLM_21391, SPECREASON_4]
    assert exceptions(lines) == []
    assert attribute(list(read_lines(lines, "server.log", Clock()))) == []
    assert TracebackReader().read(lines[4:]) == []
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
