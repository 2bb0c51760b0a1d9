"""triage/read.py at scale and on bad lines: only lines holding a keyword are looked at past their prefixes (found
in batches by the parsers' prefilter engine), which must change no evidence; a line whose reading raises is skipped,
never the rest of the job's logs; an application stamp in UTC ("...Z", the CRI envelope's) is read, not a crash."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from pathlib import Path

import pytest

from triage import Clock, app_stamp, read_lines
from triage import read as reader

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
# every file a job's triage may read here: the real incidents, the pod logs (CRI, docker JSON), the kernel logs
FILES = sorted(p for d in ("incidents", "dmesg", "nccl", "pods", "progress") for p in (FIXTURES / d).rglob("*")
               if p.is_file() and (p.suffix not in (".json", ".md", ".yaml") or p.name.endswith(".docker.json")))


def evidence(path: Path) -> list:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return list(read_lines(fh, str(path), Clock(), year=2025))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_keyword_prefilter_changes_no_evidence(path: Path, monkeypatch):
    """Each fixture read with the batch prefilter gives the evidence of every line looked at in full (where a
    multi-pattern engine is installed: with plain `re` every line is looked at in full anyway)."""
    if reader._prefilter().engine == "re":
        pytest.skip("no multi-pattern engine installed here: the prefilter passes every line")
    fast = evidence(path)
    monkeypatch.setattr(reader, "_keyworded", lambda lines, text=None: (range(len(lines)), {}))
    assert fast == evidence(path)


def test_the_prefilter_is_in_use_where_an_engine_is_installed():
    hits, _ = reader._keyworded(["[rank3]: iteration 10/ 100 | lm loss: 2.0", "Traceback (most recent call last):",
                              "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"])
    if reader._prefilter().engine == "re":
        pytest.skip("no multi-pattern engine installed here: every line is looked at")
    assert set(hits) == {1, 2}


def test_lines_with_a_newline_inside_are_all_looked_at():
    assert reader._keyworded(["a\nb", "c"])[0] == range(2)


def test_a_line_whose_reading_raises_is_skipped_and_the_rest_read(monkeypatch, caplog):
    real = reader.strip_lead

    def strip(line, record=reader.UNREAD):
        if "boom" in line:
            raise RuntimeError("a bug")
        return real(line, record)

    monkeypatch.setattr(reader, "strip_lead", strip)
    lines = ["boom 1", "[rank3]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught "
             "collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
             "Timeout(ms)=600000) ran for 600012 milliseconds before timing out.", "boom 2"]
    with caplog.at_level(logging.WARNING, "gpu_npd.triage"):
        out = list(read_lines(lines, "job.log", Clock(), year=2025))
    assert [e.kind for e in out if e.kind == "nccl_timeout"] == ["nccl_timeout"]
    assert "job.log line 1 raised" in caplog.text and "2 lines of job.log raised" in caplog.text


def test_application_stamps_in_utc_and_with_bad_offsets():
    """`gpu-npd triage` on a CRI pod log crashed on its envelope's first stamp ("...Z": int('') of the zone)."""
    t, yearless = app_stamp("2024-07-25T06:37:08.000000001Z stderr F RuntimeError: CUDA error")
    assert t == datetime(2024, 7, 25, 6, 37, 8, 0, tzinfo=timezone.utc) and not yearless
    t, _ = app_stamp("2024-07-25T06:37:08+02:00 something")
    assert t is not None and t.utcoffset().total_seconds() == 7200
    t, _ = app_stamp("2024-07-25T06:37:08+99:00 something")  # no such offset: the stamp, as naming none
    assert t == datetime(2024, 7, 25, 6, 37, 8)


def test_a_cri_pod_log_is_triaged():
    from click.testing import CliRunner

    from gpunpd.cli import main

    result = CliRunner().invoke(main, ["triage", str(FIXTURES / "dmesg" / "training-nccl.cri")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "HARDWARE" in result.output


CRI = FIXTURES / "dmesg" / "training-nccl.cri"


def test_launcher_prefixes_behind_a_cri_envelope_are_read():
    """A pod log from /var/log/pods: the envelope ("<RFC 3339> stderr F ") came before the prefixes, which were then
    not read (no host from NCCL's "node-2:201:333 [3]", no rank seen from "[rank22]:"); the line's time stays the
    envelope's."""
    out = evidence(CRI)
    assert {e.host for e in out if e.kind == "ib_completion_error" and e.line in (11, 12)} == {"node-2"}
    assert {e.rank for e in out if e.kind == "rank_seen"} >= {1, 22}
    [t] = [e for e in out if e.kind == "nccl_timeout" and e.rank == 22]
    assert t.time == datetime(2024, 7, 25, 6, 46, 2, 301234, tzinfo=timezone.utc)


def test_a_traceback_behind_a_stamp_is_read():
    """Synthetic lines in kubectl --timestamps' shape (a stamp, then Python's traceback): the traceback's opener
    and its exception line were not recognised behind the stamp."""
    lines = ["2024-07-25T06:37:08.000000001Z Traceback (most recent call last):",
             '2024-07-25T06:37:08.000000002Z   File "train.py", line 10, in <module>',
             "2024-07-25T06:37:08.000000003Z ValueError: the batch holds no sample"]
    out = list(read_lines(lines, "train-3.log", Clock(), year=2024))
    plain = list(read_lines([line.split(" ", 1)[1] for line in lines], "train-3.log", Clock(), year=2024))
    assert [e.kind for e in out if e.kind != "rank_seen"] == [e.kind for e in plain if e.kind != "rank_seen"] != []
    stamped = [e for e in out if e.kind != "rank_seen"]
    assert stamped[0].time == datetime(2024, 7, 25, 6, 37, 8, 0, tzinfo=timezone.utc)


# --- a viewer's line numbers ("[1784] " before each line) ----------------------------------------------------------

LLAMAFACTORY_8261 = FIXTURES / "incidents" / "llamafactory-8261" / "logs" / "train.log"
ELASTIC_SUMMARY = ["Root Cause (first observed failure):", "[0]:", "  time      : 2025-05-21_15:43:03",
                   "  host      : worker-3", "  rank      : 5 (local_rank: 1)", "  exitcode  : -9 (pid: 14750)",
                   "  error_file: <N/A>", "  traceback : Signal 9 (SIGKILL) received by PID 14750"]


def test_a_viewers_line_numbers_are_peeled_and_the_prefixes_behind_them_read():
    """REAL: hiyouga/LlamaFactory #8261, pasted with the viewer's "[1784] " before each line: the "[rank2]:" behind
    it was not read (no rank seen). The evidence keeps the line as written."""
    out = evidence(LLAMAFACTORY_8261)
    assert {e.rank for e in out if e.kind == "rank_seen"} == {0, 2}
    [first] = [e for e in out if e.line == 1 and e.kind != "rank_seen"]
    assert first.rank == 0 and first.text.startswith("[1784] [rank0]:")
    plain = [line.split(" ", 1)[1] for line in LLAMAFACTORY_8261.read_text().splitlines()]
    peeled = list(read_lines(plain, str(LLAMAFACTORY_8261), Clock(), year=2025))
    assert [(e.kind, e.rank, e.line) for e in peeled] == [(e.kind, e.rank, e.line) for e in out]


def test_a_torchrun_summary_behind_line_numbers_is_read():
    """The same viewer's numbers before torchrun's ChildFailedError summary: its "[0]:" opener is read behind them."""
    lines = [f"[{n}] {line}" for n, line in enumerate(ELASTIC_SUMMARY, start=1830)]
    [e] = [e for e in read_lines(lines, "train.log", Clock()) if e.kind == "rank_exit"]
    assert (e.rank, e.host, e.signal) == (5, "worker-3", 9)


@pytest.mark.parametrize("lines", [
    ELASTIC_SUMMARY,  # torchrun's "[0]:" opener: a colon, no line number
    # Open MPI's --tag-output and MPICH's tags (REAL: horovod/horovod #3929)
    ["[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 "
     "both on CUDA device 1000"] * 3,
    ["[1]<stdout>:a", "[2]<stdout>:b", "[3]<stdout>:c"],
    # NCCL's device index with the host:pid:tid cut, the same number on every line (REAL: NVIDIA/nccl #525)
    ["[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
     "[3] NCCL INFO include/shm.h:41 -> 2",
     "[3] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-1462445a6f01cbfc-1-2-3 "
     "(size 9637888)"],
    ["[2] a", "[0] b", "[1] c", "[3] d"],  # numbers that do not increase down the file
    ["[1] a", "b", "c", "[2] d", "e"],  # too few of the file's lines numbered
])
def test_what_is_no_viewers_line_number(lines):
    assert not reader._numbered(lines)


def test_a_viewers_numbers_may_skip_a_few_lines():
    assert reader._numbered(["[10] a", "[11] b", "", "[12] c", "[13] d", "[14] e", "[15] f", "[16] g", "[17] h",
                             "[18] i", "[19] j", "[25] k"])


# --- Python's traceback tail: every shape its traceback module prints -------------------------------------------

TB = "Traceback (most recent call last):"
FRAME = '  File "train.py", line 10, in <module>'


def exceptions(lines: list[str], name: str = "x.log") -> list[tuple[str, bool, str | None]]:
    """(exception, consequence, chained_from) of each exception line read."""
    return [(e.details["exception"], e.details["consequence"], e.details.get("chained_from"))
            for e in read_lines(lines, name, Clock()) if e.kind == "exception"]


@pytest.mark.parametrize("tail, name", [
    # a user's raise Exception(...)
    ("Exception: loss is nan at step 1200", "Exception"),
    ("BaseException: stop", "BaseException"),
    # builtins with no message: the name alone
    ("KeyboardInterrupt", "KeyboardInterrupt"),
    ("StopIteration", "StopIteration"),
    ("AssertionError", "AssertionError"),
    ("SystemExit: 1", "SystemExit"),
    ("UserWarning: the warning raised as an error (-W error)", "UserWarning"),
    ("RecursionError: maximum recursion depth exceeded while calling a Python object", "RecursionError"),
    # __main__'s own classes are printed bare
    ("MyFailure: x", "MyFailure"),
    # module-qualified: any class name, and the standard library's lowercase ones
    ("torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open)", "torch._dynamo.exc.Unsupported"),
    ("subprocess.TimeoutExpired: Command '['nvidia-smi']' timed out after 10 seconds", "subprocess.TimeoutExpired"),
    ("socket.gaierror: [Errno -2] Name or service not known", "socket.gaierror"),
    ("struct.error: unpack requires a buffer of 4 bytes", "struct.error"),
    ("socket.timeout: timed out", "socket.timeout"),
    ("_queue.Empty", "_queue.Empty"),
    ("__main__.ConfigError: no such dataset", "__main__.ConfigError"),
    # Ray's wrapper names its cause in parentheses
    ("ray.exceptions.RayTaskError(ValueError): ray::Trainer.train() (pid=4242, ip=10.0.0.3)",
     "ray.exceptions.RayTaskError(ValueError)"),
])
def test_every_shape_of_a_traceback_tail_is_an_exception(tail, name):
    """SYNTHETIC lines in the shapes Python's traceback.format_exception_only prints: "Name: message" or "Name" alone,
    Name bare (builtins, __main__'s classes) or module-qualified (any class name)."""
    assert [e[0] for e in exceptions([TB, FRAME, tail])] == [name]
    # behind a launcher's prefix too
    assert [e[0] for e in exceptions([f"[rank3]: {TB}", f"[rank3]: {FRAME}", f"[rank3]: {tail}"])] == [name]


@pytest.mark.parametrize("line", [
    # a logger's dotted name before its message (REAL: xiuqhou/Salience-DETR #4, its stamp peeled)
    "torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 5938 closing signal SIGTERM",
    "ERROR:root:training failed",  # Python logging's default format
    "Error: something else printed it",
    "WARNING: not an exception",
    "Epoch: 3",
    "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f>",
])
def test_what_is_no_traceback_tail(line):
    """SYNTHETIC: lines that may follow a traceback's opener (of the same writer) and name no exception class."""
    assert exceptions([TB, FRAME, line]) == []


# REAL: zhengchen1999/DAT #51 (https://github.com/zhengchen1999/DAT/issues/51), a torchrun job's traceback pasted from
# its middle: no "Traceback (most recent call last):" line, the first frame's indent cut to one space.
HEADLESS = [
    ' File "D:/pycharm/PyCharm Community Edition 2022.3.3/plugins/python-ce/helpers/pydev/pydevd.py", line 1496, in _exec',
    "    pydev_imports.execfile(file, globals, locals)  # execute the script",
    '  File "D:\\pycharm\\PyCharm Community Edition 2022.3.3\\plugins\\python-ce\\helpers\\pydev\\_pydev_imps\\_pydev_execfile.py", '
    "line 18, in execfile",
    "    exec(compile(contents+\"\\n\", file, 'exec'), glob, loc)",
    '  File "D:\\lunwen\\DAT-main\\basicsr\\train.py", line 215, in <module>',
    "    train_pipeline(root_path)",
    '  File "D:\\lunwen\\DAT-main\\basicsr\\train.py", line 93, in train_pipeline',
    "    opt, args = parse_options(root_path, is_train=True)",
    '  File "D:\\lunwen\\DAT-main\\basicsr\\utils\\options.py", line 106, in parse_options',
    "    init_dist(args.launcher)",
    '  File "D:\\lunwen\\DAT-main\\basicsr\\utils\\dist_util.py", line 14, in init_dist',
    "    _init_dist_pytorch(backend, **kwargs)",
    '  File "D:\\lunwen\\DAT-main\\basicsr\\utils\\dist_util.py", line 22, in _init_dist_pytorch',
    "    rank = int(os.environ['RANK'])",
    '  File "D:\\anaconda3\\envs\\lld\\lib\\os.py", line 675, in __getitem__',
    "    raise KeyError(key) from None",
    "KeyError: 'RANK'",
]


def test_a_traceback_without_its_header_is_read_from_its_first_frame():
    """A frame line with no open traceback of its writer opens one (triage.facts.FRAME): the exception ending it is
    the application's failure, as with its header; was nothing (the exception line alone is read only inside a
    traceback)."""
    assert exceptions(HEADLESS) == [("KeyError", False, None)]
    # CONSTRUCTED from those real lines: each behind torchrun's "[rankN]: " (every line tagged, two ranks' lines
    # interleaved, neither with its header): one exception per rank, each its own rank's
    tagged = [f"[rank{r}]: {line}" for line in HEADLESS for r in (0, 1)]
    ev = [e for e in read_lines(tagged, "x.log", Clock()) if e.kind == "exception"]
    assert sorted((e.rank, e.details["exception"]) for e in ev) == [(0, "KeyError"), (1, "KeyError")]
    # faulthandler's dump ("line N in f", no comma) opens nothing: the exception-shaped line after it is no failure
    assert exceptions(['  File "train.py", line 10 in main', "KeyError: 'RANK'"]) == []


# faulthandler's dump at a NCCL watchdog's abort, REAL lines verbatim: yifan123/flow_grpo #161
# (https://github.com/yifan123/flow_grpo/issues/161)
FAULTHANDLER = [
    "Fatal Python error: Aborted",
    "",
    "Thread 0x00007fa0f51fd640 (most recent call first):",
    '  File "/opt/conda/envs/python3.10.13/lib/python3.10/threading.py", line 324 in wait',
    '  File "/opt/conda/envs/python3.10.13/lib/python3.10/threading.py", line 607 in wait',
    '  File "/opt/conda/envs/python3.10.13/lib/python3.10/site-packages/tqdm/_monitor.py", line 60 in run',
]


def test_a_dumps_frames_cost_no_rule_or_fact(monkeypatch):
    """The prefilter's FRAME_WORD routes every frame line to the reader (a traceback without its header opens at its
    first frame); a frame no traceback is open for and no exception line ends (faulthandler's, every thread of every
    rank at an abort) is not tried against the classifier's rules and the job facts (~30 us a line), which no frame
    holds; was, each of them."""
    tried: list[str] = []
    match, classify = reader.facts.match, reader.FileReader._classify
    monkeypatch.setattr(reader.facts, "match", lambda text: tried.append(text) or match(text))
    monkeypatch.setattr(reader.FileReader, "_classify",
                        lambda self, text, n: tried.append(text) or classify(self, text, n))
    ev = list(read_lines(FAULTHANDLER, "x.log", Clock()))
    assert [(e.kind, e.line) for e in ev] == [("rank_exit", 1)]  # the abort itself, read as before
    assert [t for t in tried if "File " in t] == []


def test_vllms_workerproc_summary_is_an_exception_and_a_consequence():
    """REAL text: vLLM's multiproc executor's summary of a worker's failure (v1/executor/multiproc_executor.py, quoted
    in vllm-project/vllm #47422), a bare `Exception`: read as an exception (it was not at all), and a consequence (it
    says its root cause is elsewhere)."""
    line = ("Exception: WorkerProc initialization failed due to an exception in a background process. See stack "
            "trace for root cause.")
    assert exceptions([TB, FRAME, line]) == [("Exception", True, None)]


def test_a_chained_exception_is_a_consequence_of_the_chains_first():
    """SYNTHETIC lines in Python's chained shapes: the exception raised while handling, or because of, the one
    printed above it is that one's consequence; the chain's first stays the failure, whatever the chain's length."""
    lines = [TB, FRAME, "KeyError: 'input_ids'", "",
             "During handling of the above exception, another exception occurred:", "",
             TB, FRAME, "AttributeError: input_ids", "",
             "The above exception was the direct cause of the following exception:", "",
             TB, FRAME, "RuntimeError: collate failed"]
    assert exceptions(lines) == [("KeyError", False, None), ("AttributeError", True, "KeyError"),
                                 ("RuntimeError", True, "KeyError")]
    # a chain that starts with a consequence (the job's SIGTERM seen as KeyboardInterrupt) is all consequence
    assert exceptions([TB, FRAME, "KeyboardInterrupt", "",
                       "During handling of the above exception, another exception occurred:", "",
                       TB, FRAME, "RuntimeError: DataLoader worker (pid 77) exited unexpectedly"]) == [
        ("KeyboardInterrupt", True, None), ("RuntimeError", True, "KeyboardInterrupt")]
    # two writers' chains stay apart: rank 1's marker says nothing of rank 0's next exception
    assert exceptions(["[rank1]: " + TB, "[rank1]: ValueError: a",
                       "[rank1]: During handling of the above exception, another exception occurred:",
                       "[rank0]: " + TB, "[rank0]: OSError: b"]) == [("ValueError", False, None),
                                                                      ("OSError", False, None)]


def test_an_exception_chained_after_a_cuda_error_is_its_consequence():
    """SYNTHETIC lines in Python's chained shape whose first exception is a CUDA error (the parsers' cuda_error): what
    is raised while handling it, a CUDA or NCCL error the parsers know too, is its consequence, not a failure of its
    own."""
    first = "RuntimeError: CUDA error: an illegal memory access was encountered"
    for second, kind in [("RuntimeError: CUDA error: unknown error", "cuda_error"),
                         ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled "
                          "cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5", "nccl_error"),
                         ("RuntimeError: collate failed", "exception")]:
        ev = list(read_lines([TB, FRAME, first, "", "During handling of the above exception, another exception "
                              "occurred:", "", TB, FRAME, second], "x.log", Clock()))
        assert [e.kind for e in ev] == ["cuda_error", kind]
        assert not ev[0].details.get("consequence")
        assert ev[1].details["consequence"] and ev[1].details["chained_from"] == "cuda_error"


@pytest.mark.parametrize("lines, etype", [
    # SWivid/F5-TTS #458 (torch 2.x behind torchrun's "[rank0]:"): torch.save's zip writer, its write come back short
    (["[rank0]: Traceback (most recent call last):",
      '[rank0]:   File "/opt/conda/envs/venv/lib/python3.10/site-packages/torch/serialization.py", line 652, in save',
      "[rank0]:     _save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)",
      '[rank0]:   File "/opt/conda/envs/venv/lib/python3.10/site-packages/torch/serialization.py", line 866, in _save',
      "[rank0]:     zip_file.write_record('data.pkl', data_value, len(data_value))",
      "[rank0]: RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file "
      "data.pkl: file write failed"], "RuntimeError"),
    # hiyouga/LlamaFactory #1223 (torch 2.0, a DeepSpeed checkpoint)
    (["Traceback (most recent call last):",
      '  File "/home/ma-user/anaconda3/envs/myenv/lib/python3.9/site-packages/torch/serialization.py", line 423, in save',
      "    _save(obj, opened_zipfile, pickle_module, pickle_protocol)",
      '  File "/home/ma-user/anaconda3/envs/myenv/lib/python3.9/site-packages/torch/serialization.py", line 650, in _save',
      "    zip_file.write_record(name, storage.data_ptr(), num_bytes)",
      "RuntimeError: [enforce fail at inline_container.cc:445] . PytorchStreamWriter failed writing file data/176: file "
      "write failed"], "RuntimeError"),
])
def test_a_traceback_ending_in_the_file_systems_refusal_is_a_storage_error(lines, etype):
    """The traceback's exception states a storage fact (triage.facts.EXCEPTION_FACTS): read as the storage's failure,
    its exception type kept; was: an exception, the application's."""
    [e] = [e for e in read_lines(lines, "x.log", Clock()) if e.kind in ("exception", "storage_error")]
    assert (e.kind, e.details["exception"]) == ("storage_error", etype)


@pytest.mark.parametrize("lines, etype, what", [
    # REAL (pytorch/pytorch #91943, an elastic job's agent after a worker was deleted): the bare exception, no message
    (['  File "/usr/local/lib/python3.6/dist-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", '
      'line 634, in run',
      "    raise RendezvousClosedError()",
      "torch.distributed.elastic.rendezvous.api.RendezvousClosedError"],
     "torch.distributed.elastic.rendezvous.api.RendezvousClosedError", "RendezvousClosedError"),
    # the exception line REAL (pytorch/pytorch #107021, c10d rendezvous on 3 nodes), its frame SYNTHETIC: the type
    # names the store, the message does not
    ([TB, '  File "/x/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", line 113, in _call_store',
      "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
      "failed. See inner exception for details."],
     "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError", "RendezvousConnectionError"),
    # the exception lines REAL (OpenRLHF/OpenRLHF #1040; facebookresearch/metaseq #52), their frames SYNTHETIC: the
    # counts the store waited for are read, as on a lone line
    ([TB, '  File "/x/torch/distributed/rendezvous.py", line 189, in _create_c10d_store',
      "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined."],
     "torch.distributed.DistStoreError", "Timed out after 1801 seconds waiting for clients"),
    ([TB, '  File "/x/torch/distributed/distributed_c10d.py", line 222, in _store_based_barrier',
      "RuntimeError: Timed out initializing process group in store based barrier on rank: 4330, for key: "
      "store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)"],
     "RuntimeError", "Timed out initializing process group in store based barrier"),
])
def test_a_traceback_ending_in_a_store_error_is_the_stores(lines, etype, what):
    """The traceback's exception states a store fact (triage.facts store_error `raised`), by its message or its type
    alone: read as the store's error, its exception type kept; was: an exception, the application's (a bare
    RendezvousClosedError, RendezvousConnectionError) or a consequence without the store's counts (DistStoreError's,
    the store based barrier's RuntimeError)."""
    found = [e for e in read_lines(lines, "x.log", Clock()) if e.kind in ("exception", "store_error")]
    assert {e.kind for e in found} == {"store_error"}  # the frame's `raise RendezvousClosedError()` is the row's too
    e = found[-1]
    assert (e.details["exception"], e.details["what"]) == (etype, what)


def test_an_exception_groups_sub_exceptions_are_the_failures():
    """SYNTHETIC lines in Python 3.11+'s exception group shape (its margin, "  | ", peeled): the group is a wrapper,
    a consequence; each sub-exception is read as an exception of its own."""
    group = ["  + Exception Group Traceback (most recent call last):",
             '  |   File "serve.py", line 2, in <module>',
             "  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)",
             "  +-+---------------- 1 ----------------",
             "    | Traceback (most recent call last):",
             '    |   File "serve.py", line 3, in worker',
             "    | OSError: [Errno 28] No space left on device",
             "    +---------------- 2 ----------------",
             "    | Traceback (most recent call last):",
             '    |   File "serve.py", line 3, in worker',
             "    | ValueError: bad shard",
             "    +------------------------------------"]
    assert exceptions(group) == [("ExceptionGroup", True, None), ("ValueError", False, None)]
    # the full disk's OSError: the storage's failure (a storage_error, its exception kept), not the program's
    assert [(e.kind, e.details.get("exception")) for e in read_lines(group, "x.log", Clock())
            if e.kind == "storage_error"] == [("storage_error", "OSError")]
    # the margin is peeled only inside a group: a shell's trace line ("+ ") before a traceback is no margin
    assert exceptions(["+ " + TB, "+ ValueError: x"]) == []


# --- per-line costs: one stamp match, one writer built per file ---------------------------------------------------

class _Counting:
    """A compiled pattern whose matches are counted."""

    def __init__(self, pattern):
        self.pattern, self.calls = pattern, 0

    def match(self, text, *args):
        self.calls += 1
        return self.pattern.match(text, *args)


@pytest.mark.parametrize("line,fields,lead,rest,stamps", [
    # the CRI envelope, then Slurm's label and torch's prefix (the synthetic job of bench/triage_scale.py behind
    # tests/fixtures/dmesg/training-nccl.cri's envelope)
    ("2024-07-25T06:36:18.293456789Z stderr F 12: [rank12]: iteration 10/ 100 |",
     (("rank", 12),), "2024-07-25T06:36:18.293456789Z stderr F ", "iteration 10/ 100 |", 1),
    # a stamp between two prefixes (NVIDIA/nccl #230's shape): the first stamp is the lead
    ("[1,12]<stdout>:2019-06-02T16:13:44.884Z: node-7:815:864 [0] NCCL WARN x",
     (("rank", 12), ("host", "node-7"), ("pid", 815), ("gpu", 0)), "2019-06-02T16:13:44.884Z: ", "NCCL WARN x", 1),
    # a stamp right after the last prefix, no prefix behind it: peeled all the same (Python logging behind torchrun)
    ("[rank3]:2024-05-08 08:47:31,261 Traceback (most recent call last):",
     (("rank", 3),), "2024-05-08 08:47:31,261 ", "Traceback (most recent call last):", 1),
    # a second stamp no prefix follows stays in the message (tests/fixtures/dmesg/training-nccl.cri line 10)
    ("2024-07-25T06:36:18.293456789Z stderr F [2024-07-25 06:36:18,293] torch.distributed.elastic: [WARNING] x",
     (), "2024-07-25T06:36:18.293456789Z stderr F ", "[2024-07-25 06:36:18,293] torch.distributed.elastic: [WARNING] x",
     2),
])
def test_a_lines_stamp_is_matched_once(line, fields, lead, rest, stamps, monkeypatch):
    """`strip_lead` peels a line's first stamp (at its start, between two prefixes or after the last) in the same pass
    as its prefixes: each stamp is matched once (the reader matched the first up to three times)."""
    from triage import ranks
    counting = _Counting(ranks.LEAD)
    monkeypatch.setattr(ranks, "LEAD", counting)
    assert ranks.strip_lead(line) == (fields, lead, rest)
    assert counting.calls == stamps


# triton-inference-server/tensorrtllm_backend #170 (the description's server log, pasted with 10 spaces before each line)
INDENTED_NCCL = ("          xllm3-milu2-neil-3-trt-llm-f7457bcc-xsv4v:5011:5092 [1] init.cc:824 NCCL WARN Duplicate GPU "
                 "detected : rank 0 and rank 1 both on CUDA device e3000")


def test_nccls_prefix_after_a_pasted_logs_indentation_names_the_host():
    """NCCL's "host:pid:tid [dev]" after a line's leading whitespace (a log pasted indented) is its writer's prefix
    (was: not read, the pod named nowhere); other rows are not tried there (srun's label is its own spaces)."""
    from triage import ranks
    fields, lead, rest = ranks.strip_lead(INDENTED_NCCL)
    assert dict(fields) == {"host": "xllm3-milu2-neil-3-trt-llm-f7457bcc-xsv4v", "pid": 5011, "gpu": 1}
    assert rest.startswith("init.cc:824 NCCL WARN Duplicate GPU detected")
    # indented text that is no NCCL prefix stays as it was; a pdsh-like "word: " after spaces is no host
    assert ranks.strip_lead("          Failed, NCCL error x") == ((), "", "          Failed, NCCL error x")
    assert ranks.strip_lead("    worker-3: hello") == ((), "", "    worker-3: hello")
    assert ranks.strip_lead(" " * 5000) == ((), "", " " * 5000)


def test_a_writers_origin_is_built_once_per_file(monkeypatch):
    """The Origin of a line's prefixes (and its writer's key, the ranks it names) is made the first time the
    prefixes are met, not again on every line of the same writer."""
    built = []
    real = reader.origin_of
    monkeypatch.setattr(reader, "origin_of", lambda fields: built.append(fields) or real(fields))
    lines = [f"{r}: [rank{r}]: iteration {i}/ 100 | lm loss: 2.0" for i in range(50) for r in range(4)]
    out = list(read_lines(lines, "slurm.out", Clock(), year=2025))
    assert sorted(built) == [(("rank", r),) for r in range(4)]
    assert sorted((e.rank, e.line) for e in out if e.kind == "rank_seen") == [(r, r + 1) for r in range(4)]


# REAL: PyTorch's DataLoader on a worker killed by a signal, every era's wording (torch/csrc/DataLoader.cpp: glibc's
# strsignal() after "is killed by signal: ")
DATALOADER_DEATHS = [
    # https://github.com/open-mmlab/mmdetection/issues/291 (PyTorch 0.4.1, 2019)
    ("RuntimeError: DataLoader worker (pid 34569) is killed by signal: Bus error. Details are lost due to "
     "multiprocessing. Rerunning with num_workers=0 may give better error trace.", 34569, 7),
    # https://github.com/hkchengrex/STCN/issues/132 (2022: the shared-memory hint)
    ("RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's "
     "workers are out of shared memory. Please try to raise your shared memory limit.", 46794, 7),
    # https://github.com/hezhangsprinter/DCPDN/issues/12 (2018)
    ("RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.", 19597, 9),
    # https://github.com/pytorch/pytorch/issues/8976 (a comment of 2024-07-22: a trailing space)
    ("RuntimeError: DataLoader worker (pid 1817) is killed by signal: Killed. ", 1817, 9),
    # https://github.com/MhLiao/DB/issues/94 (2019)
    ("RuntimeError: DataLoader worker (pid 25902) is killed by signal: Segmentation fault", 25902, 11),
]


@pytest.mark.parametrize("line, pid, signal", DATALOADER_DEATHS)
def test_a_dataloader_workers_death_is_read_with_its_pid_and_signal(line, pid, signal):
    """A rank's exception saying its DataLoader worker was killed by a signal is the worker's death (worker_exit):
    the worker's pid and the signal, the rank the line's writer's; was an application exception like any other
    (the signal and pid unread, so a SIGBUS the host's memory sent was never matched to it)."""
    for lines in ([TB, FRAME, "[rank3]: " + line], ["[rank3]: " + line]):  # in a traceback, and alone
        ev = [e for e in read_lines(lines, "x.log", Clock()) if e.kind != "rank_seen"]
        assert [(e.kind, e.pid, e.signal, e.rank) for e in ev] == [("worker_exit", pid, signal, 3)], lines
    # the exception's type is kept, and what is raised from it is its consequence
    ev = list(read_lines([TB, FRAME, line, "", "The above exception was the direct cause of the following exception:",
                          "", TB, FRAME, "RuntimeError: DataLoader worker (pid(s) 1817) exited unexpectedly"],
                         "x.log", Clock()))
    death, = (e for e in ev if e.kind == "worker_exit")
    raised, = (e for e in ev if e.kind == "exception")
    assert death.details["exception"] == "RuntimeError"
    assert raised.details["consequence"] and raised.details["chained_from"] == "RuntimeError"


# REAL: mlcommons/training_results_v5.1 at 441d65f4, HPE/results/HPE-Cray-XD670-H200-SXM5-141GB_n8_25.09/llama31_8b/
# result_1.txt lines 403-414 (a run that reached its target): NeMo's optional import of quick_gelu, logged with its
# traceback twice (its own handler, then the root logger's INFO:nemo.utils.import_utils:) and gone on from
NEMO_SAFE_IMPORT = [
    ' 2: Import of quick_gelu from megatron.core.fusions.fused_bias_geglu failed with: Traceback (most recent call last):',
    ' 2:   File "/workspace/NeMo/nemo/utils/import_utils.py", line 319, in safe_import_from',
    ' 2:     return getattr(imported_module, symbol), True',
    ' 2:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
    " 2: AttributeError: module 'megatron.core.fusions.fused_bias_geglu' has no attribute 'quick_gelu'",
    ' 2: ',
    ' 2: INFO:nemo.utils.import_utils:Import of quick_gelu from megatron.core.fusions.fused_bias_geglu failed with: Traceback (most recent call last):',
    ' 2:   File "/workspace/NeMo/nemo/utils/import_utils.py", line 319, in safe_import_from',
    ' 2:     return getattr(imported_module, symbol), True',
    ' 2:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
    " 2: AttributeError: module 'megatron.core.fusions.fused_bias_geglu' has no attribute 'quick_gelu'",
    ' 2: ',
]


def test_a_traceback_the_program_logged_as_handled_is_no_failure():
    """NeMo's safe_import_from logs the AttributeError of an optional symbol with its traceback and goes on: no
    exception evidence (was: an application incident rooted at it, on runs that reached their target).  A logged
    traceback of any other wording stays one (vLLM's, the incidents': tests/fixtures/incidents)."""
    from triage import attribute
    assert [e.kind for e in read_lines(NEMO_SAFE_IMPORT, "result_1.txt", Clock(), year=2025)
            if e.kind == "exception"] == []
    assert attribute(list(read_lines(NEMO_SAFE_IMPORT, "result_1.txt", Clock(), year=2025))) == []


# REAL: mlcommons/training_results_v5.1 at 441d65f4, Dell/results/2xXE9680Lx8B200-SXM-180GB/llama2_70b_lora/
# result_0.txt lines 32-35 (a run that reached its target, UCX_LOG_LEVEL=debug): UCX's VFS not set up, diagnostics
UCX_VFS_DIAG = [
    "[1759897476.656321] [xe9680lx8b200-sxm-6:333972:f]        vfs_fuse.c:424  UCX  DEBUG connecting vfs socket 3 to daemon on '/run/user/0/ucx/vfs.sock'",
    "[1759897476.656341] [xe9680lx8b200-sxm-6:333972:f]        vfs_fuse.c:432  UCX  DEBUG failed to connect to vfs socket '/run/user/0/ucx/vfs.sock': No such file or directory",
    "[1759897476.656352] [xe9680lx8b200-sxm-6:333972:f]        vfs_sock.c:63   UCX  DIAG  failed to create directory '/run/user/0/ucx': No such file or directory",
    "[1759897476.656360] [xe9680lx8b200-sxm-6:333972:f]        vfs_fuse.c:440  UCX  DIAG  failed to watch on '/run/user/0/ucx/vfs.sock': Input/output error, VFS will be disabled",
]


def test_ucx_diagnostics_below_warn_state_no_fact():
    """UCX's DIAG / DEBUG lines quote errno words of what it went on without (its VFS): no storage_error (was: the
    I/O error of line 35, an infrastructure incident on a run that reached its target)."""
    from triage import facts
    assert [facts.match(line) for line in UCX_VFS_DIAG] == [None] * 4
    assert [e.kind for e in read_lines(UCX_VFS_DIAG, "result_0.txt", Clock(), year=2025)] == []
    # the row still reads the words elsewhere: an OSError's (REAL, the line tests/triage/test_triage.py reads)
    assert facts.match("[rank3]: OSError: [Errno 5] Input/output error: '/app/naifu555'")[0].kind == "storage_error"


def test_files_share_one_classifiers_tables_each_its_own_stream():
    """A job of 20,000 per-rank files built the classifier's tables and keyword prefilter anew for each (some 5 ms
    a file, most of the triage of many small files): each file's reader now takes a stream of one classifier per
    year, its tables, prefilter and memo shared, its stream context its own, so no file's evidence changes."""
    a, b = reader.FileReader("a.log", Clock(), year=2025), reader.FileReader("b.log", Clock(), year=2025)
    assert a.classifier is not b.classifier
    assert a.classifier.prefilter is b.classifier.prefilter and a.classifier.memo is b.classifier.memo
    first, then = FILES[0], FILES[-1]
    alone = evidence(then)
    evidence(first)
    assert evidence(then) == alone


def test_lines_without_a_time_are_not_searched_for_a_stamp(monkeypatch):
    """The year probe looks at each file's first 2,000 lines: in a 1,024-rank job of per-rank files, every line of
    the job, five stamp searches each (half the triage's time). A line holding no "HH:MM" (which every stamp form
    holds) is now none after one search; a stamp's line is read as before."""
    from triage import clock  # noqa: PLC0415

    assert all(r"(?P<H>\d\d):(?P<M>\d\d)" in pattern.pattern for pattern, _ in clock._STAMPS)
    searched = []

    class Counted:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, text):
            searched.append(text)
            return self.pattern.search(text)

    monkeypatch.setattr(clock, "_STAMPS", tuple((Counted(p), dated) for p, dated in clock._STAMPS))
    lines = [f"[rank3]: iteration {i:>8}/ 1000000 | lm loss: 2.0 | elapsed time per iteration (ms): 1200.5\n"
             for i in range(2000)]
    list(read_lines(iter(lines), "rank3.log", Clock()))
    assert searched == []
    assert app_stamp("[2024-05-08 08:47:31,261] torch.distributed: x")[0] == datetime(2024, 5, 8, 8, 47, 31, 261000)


# REAL: stern's own expected `stern -o json` line (stern/stern cmd/cmd_test.go @8a00e61, L274;
# tests/fixtures/realworld/envelopes-stern-2026.yaml), verbatim: its message "json message" is replaced below
STERN_JSON = ('{"message":"json message","nodeName":"node1","namespace":"ns1","podName":"pod1","containerName":"container1",'
              '"labels":{"app":"nginx","env":"prod"},"annotations":{"version":"1.23.4"}}')
# CONSTRUCTED: messages as JSON escapes them (stern marshals its record with Go's json.Marshal, which writes `"`, `\`
# and a newline escaped and `<`, `>`, `&` as \u003c, \u003e, \u0026: stern cmd/cmd.go's "json" template function;
# Python's json.dumps writes a non-ASCII character as \u00e9), an escape before the keyword or inside it
ESCAPED_MESSAGES = {
    "quote before": r'\"NCCL WARN Net : Connection closed by remote peer\"',
    "backslash before": r"C:\\tmp\\NCCL WARN Net : Connection closed by remote peer",
    "non-ASCII escape before": r"r\u00e9seau: NCCL WARN Net : Connection closed by remote peer",
    "newline before": r"step 3\nNCCL WARN Net : Connection closed by remote peer",
    "quote inside": r'  File \"/opt/train.py\", line 12, in \u003cmodule\u003e',
    "quotes inside": r':::MLLOG {\"namespace\": \"\", \"key\": \"run_stop\", \"value\": null}',
    "html escape inside": r"NetworkManager[1021]: \u003cwarn\u003e  (eth0): link timed out.",
}


@pytest.mark.parametrize("engine", ("hyperscan", "re2"))  # (`re` looks at every line: no case of it can fail)
@pytest.mark.parametrize("case", ESCAPED_MESSAGES)
def test_a_keyword_escaped_in_a_stern_json_record_is_found(case: str, engine: str, monkeypatch):
    """A stern `-o json` record is read as its decoded message (ranks.strip_lead): the prefilter finds a keyword the
    message holds where JSON escapes it in the line's bytes (`\\"` in a traceback's `File "`, Go's \\u003c in
    `<warn>`), on each engine.  Before: hyperscan and RE2 scanned the raw line, so a frame, an MLPerf run_stop or
    NetworkManager's <warn> in stern's JSON was never looked at (`re` looks at every line)."""
    pytest.importorskip(engine)
    monkeypatch.setenv("GPU_NPD_MATCHER", engine)
    reader._prefilter.cache_clear()
    monkeypatch.setattr(reader, "_prefilter", reader._prefilter.__wrapped__)  # this engine's, not the cached one
    line = STERN_JSON.replace("json message", ESCAPED_MESSAGES[case])
    message = json.loads(line)["message"]
    assert reader._prefilter().find(message) is not None  # (the decoded message holds a keyword)
    assert set(reader._keyworded(["loss 0.3", line, STERN_JSON])[0]) == {1}


def test_a_stern_json_record_holding_a_backslash_is_decoded_once(monkeypatch):
    """A stern `-o json` line holding an escape is decoded once per read: the keyword scan's record (`_keyworded`) is
    the one `strip_lead` reads the line by, and the evidence is the same.  Before: twice, the scan's and strip_lead's
    (each line's JSON parsed again)."""
    from triage import ranks
    lines = [STERN_JSON.replace("json message", r'  File \"/opt/train.py\", line 12, in \u003cmodule\u003e'),
             STERN_JSON.replace("json message", r'step 3 \"loss\" 0.3'), STERN_JSON]
    before = list(read_lines(lines, "stern.log", Clock(), year=2025))
    calls = []

    def counted(line):
        calls.append(line)
        return real(line)

    real = ranks.stern_record
    monkeypatch.setattr(reader, "stern_record", counted)
    monkeypatch.setattr(ranks, "stern_record", counted)
    assert list(read_lines(lines, "stern.log", Clock(), year=2025)) == before
    assert sorted(calls) == sorted(lines)


# A watchdog's WorkNCCL(..) a terminal wrapped at its width: REAL, the incidents' logs as their issues posted them
# (HKUDS/GraphGPT #44 at 75 columns, NVIDIA-NeMo/Speech #13562 at 183; tests/fixtures/incidents/*/source.md)
GRAPHGPT = FIXTURES / "incidents" / "graphgpt-44-wrapped-at-75-columns" / "logs" / "train.log"
NEMO = FIXTURES / "incidents" / "h681_nemo-speech-13562-wrapped-broadcast" / "logs" / "train.log"
# mila-iqia/milabench #269: milabench's output wrapped at a word, after the watchdog's "operation timeout: "
MILABENCH = FIXTURES / "incidents" / "milabench-269-wrapped-watchdog" / "logs" / "dinov2-giant-nodes.log"


def _timeouts(path: Path) -> list[tuple]:
    return [(e.line, e.rank, e.seq, e.op, e.timeout_ms, e.details.get("numel_in")) for e in evidence(path)
            if e.kind == "nccl_timeout" and e.seq is not None]


def test_a_worknccl_wrapped_by_a_terminal_is_read_whole():
    """GraphGPT #44: "WorkNCCL(" / "SeqNum=778778, .. Timeout(ms)=1800000" / ") ran for .." is rank 1's ALLREDUCE
    with its timeout and size; its what()'s "OpT" / "ype=ALLREDUCE" rethrow gives the first line's event the OpType
    (were: the first no SeqNum or OpType, the second a SeqNum and no OpType). NeMo #13562: "NumelOut=5" / "164000, .."
    keeps each rank's Timeout(ms)."""
    assert _timeouts(GRAPHGPT) == [(7, 1, 778778, "ALLREDUCE", 1800000, 1), (1, None, 778778, "ALLREDUCE", 1800000,
                                                                             None)]
    assert [t[4] for t in _timeouts(NEMO)] == [1800000] * 3


@pytest.mark.parametrize("text, joined", [
    (GRAPHGPT.read_text(encoding="utf-8"), [7, 8, 12]),  # "WorkNCCL(" + 2 lines; "OpT" + 1 (0-based)
    (NEMO.read_text(encoding="utf-8"), [1, 3, 5]),
    # each "WorkNCCL(SeqNum=2070, .." after its watchdog line; "by watchdog at work: 2070, .." after "detected"
    (MILABENCH.read_text(encoding="utf-8"), [1, 3, 5, 7, 9]),
    # CONSTRUCTED: the progress line's "detected" at a line's end and a next line that is not its rest
    ("[PG 0 Rank 3] Exception (either an error or timeout) detected\n[rank0]: by watchdog at work: 12, x\n", []),
    # CONSTRUCTED: the watchdog's words at a line's end and a next line that does not start "WorkNCCL(" (another
    # writer's prefix before it, another line), each read as its own
    ("[Rank 3] Watchdog caught collective operation timeout: \n[rank0]: WorkNCCL(SeqNum=12, OpType=BROADCAST)\n", []),
    ("[Rank 3] Watchdog caught collective operation timeout: \nEpoch 3: loss 0.1\n", []),
    # CONSTRUCTED: a cut WorkNCCL(..) whose next line is no rest of its field (another writer's line, a field of
    # another name, a line ending in padding: a line that ended there; a list closed already), each read as its own
    ("[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpTy\n[rank0]: pe=BROADCAST\n", []),
    ("[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpTy\nRank=BROADCAST, x\n", []),
    ("[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=BROADCAST  \n, NumelIn=1\n",
     []),
    ("[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=BROADCAST, Timeout(ms)=6)\n)\n",
     []),
])
def test_rejoined_lines_keep_their_number_and_join_only_a_fields_rest(text, joined):
    lines = text.splitlines(keepends=True)
    out = list(reader.rejoined(lines))
    assert len(out) == len(lines)
    # (the text kept but for a blank put back between two words the wrap separated: "detected" / "by watchdog")
    assert "".join(x.rstrip("\n") for x in out).replace(" ", "") == "".join(x.rstrip("\n") for x in lines).replace(
        " ", "")
    assert [i for i, x in enumerate(out) if x == "" and lines[i].strip()] == joined


def test_a_watchdog_line_wrapped_before_its_worknccl_is_read_whole():
    """milabench #269 (REAL, the incident's log): "[Rank 14] Watchdog caught collective operation timeout: " /
    "WorkNCCL(SeqNum=2070, OpType=REDUCE, .., Timeout(ms)=600000) ran for ..": each of cn-d004's four ranks timed out
    in REDUCE SeqNum 2070 after 600 s, on its watchdog line's number.  Was: each rank's timeout with no SeqNum, OpType
    or Timeout(ms) (its WorkNCCL(..) on the next line, joined only when cut inside its fields); the incident's
    consequences "4 ranks timed out", no collective."""
    assert _timeouts(MILABENCH) == [(n, rank, 2070, "REDUCE", 600000, 1) for n, rank in
                                    [(1, 14), (3, 12), (5, 11), (7, 15)]]
    from triage import attribute
    incident = attribute(evidence(MILABENCH))[0]
    assert (incident.category, incident.root.kind) == ("undetermined", "nccl_timeout")
    assert "4 ranks (11,12,14,15) timed out in REDUCE SeqNum 2070" in incident.consequences


def test_a_progress_line_wrapped_at_a_word_is_read_whole():
    """milabench #269 (REAL, the incident's log): rank 12's "[PG 0 (default_pg) Rank 12] Exception (either an error or
    timeout) detected" / "by watchdog at work: 2070, last enqueued NCCL work: 2070, last completed NCCL work: 2069."
    is its progress line (facts: watchdog_progress) on the first line's number.  Was: neither line any evidence."""
    (ev,) = [e for e in evidence(MILABENCH) if e.kind == "nccl_progress"]
    assert (ev.line, ev.rank, ev.seq, ev.last_enqueued, ev.last_completed, ev.details["pg"]) == (9, 12, 2070, 2070,
                                                                                                2069, "0")


def test_a_watchdog_line_whose_paste_stripped_its_blank_joins_with_one():
    """CONSTRUCTED from the milabench #269 line with its trailing blank stripped (as a paste may): the blank put back,
    rank 14's REDUCE read; the line's number kept, the joined line read as empty."""
    lines = MILABENCH.read_text(encoding="utf-8").splitlines(keepends=True)[:2]
    lines[0] = lines[0].rstrip() + "\n"
    out = list(reader.rejoined(lines))
    assert out[0].endswith("operation timeout: WorkNCCL(SeqNum=2070, OpType=REDUCE, NumelIn=1, NumelOut=1, "
                           "Timeout(ms)=600000) ran for 600034 milliseconds before timing out.") and out[1] == ""
    (ev,) = [e for e in read_lines(lines, "train.log", Clock(), year=2024) if e.kind == "nccl_timeout"]
    assert (ev.line, ev.rank, ev.seq, ev.op, ev.timeout_ms) == (1, 14, 2070, "REDUCE", 600000)


def test_a_cut_watchdog_line_and_its_rest_read_as_one():
    """CONSTRUCTED (the brief's wrap of a watchdog line): "OpTy" / "pe=BROADCAST, NumelIn=1, .." is rank 3's
    BROADCAST."""
    lines = ["[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpTy\n",
             "pe=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600052 milliseconds before timing out.\n"]
    (ev,) = [e for e in read_lines(lines, "train.log", Clock(), year=2025) if e.kind == "nccl_timeout"]
    assert (ev.line, ev.rank, ev.seq, ev.op, ev.timeout_ms, ev.details.get("numel_in")) == (
        1, 3, 12, "BROADCAST", 600000, 1)


def test_rejoining_skips_a_part_without_its_words_and_joins_across_parts():
    """`rejoined_parts` hands on a part holding neither "WorkNCCL(" nor the word every WORD_WRAPS lead holds, untested
    line by line; a watchdog line cut at a part's last line still joins the next part's first (the held line carried
    over), the lines keeping their numbers."""
    assert all(reader._WRAP_WORD in lead for lead in reader._WRAP_LEADS)
    filler = [f"step {i} loss 2.{i % 10}\n" for i in range(reader.BATCH - 1)]
    cut = "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpTy\n"
    rest = "pe=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600052 milliseconds before timing out.\n"
    lines = filler + [cut, rest] + filler
    parts = list(reader.rejoined_parts(lines))
    assert parts[0][:len(filler)] == filler and sum(map(len, parts)) == len(lines)
    out = [line for part in parts for line in part]
    assert out[reader.BATCH - 1] == cut.rstrip("\n") + rest.rstrip("\n") and out[reader.BATCH] == ""
    (ev,) = [e for e in read_lines(lines, "train.log", Clock(), year=2025) if e.kind == "nccl_timeout"]
    assert (ev.line, ev.rank, ev.seq, ev.op) == (reader.BATCH, 3, 12, "BROADCAST")
    plain = filler * 3
    assert reader.rejoined(plain) == plain
