"""Records that share one physical line (triage.read.line_records): a tqdm bar's "\\r" rewrites and the record printed
after its last state (or a paste that kept the record glued to the bar and lost the "\\r")."""

from __future__ import annotations

import io

from triage import Clock, read_lines
from triage import read as reader
from opcount import cpu_seconds

# pytorch/pytorch #118369 (pengzhangzhi, 2024-02-17), verbatim: the watchdog line glued after Lightning's bar
GLUED = ("Epoch 0:   6%|██                               | 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6, "
         "v_num=95nc, reduced_train_loss=2.590, global_step=3.2e+4, consumed_samples=2.56e+7][E ProcessGroupNCCL.cpp:458] "
         "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=96120, OpType=ALLREDUCE, "
         "Timeout(ms)=1800000) ran for 25624887 milliseconds before timing out.")


def _read(text: str) -> list:
    return [e for e in read_lines(io.StringIO(text), "rank.log", Clock(), year=2024) if e.kind != "rank_seen"]


def test_a_record_glued_after_a_bar_is_its_own_record():
    bar, record = reader.line_records(GLUED)
    assert bar.endswith("consumed_samples=2.56e+7]")
    assert record.startswith("[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught")


def test_ordinary_lines_are_one_record():
    for line in ("[rank0]: Traceback (most recent call last):", "  File \"x.py\", line 3, in <module>",
                 " 12%|#| 91/783 [00:02<00:19, 35.72it/s]", "a < b, c > d"):
        assert reader.line_records(line) is None


def test_a_run_of_bars_then_a_record_reads_the_last_bar_and_the_record():
    line = (" 10%|#| 9/90 [00:02<00:19, 3.72it/s]\r 11%|#| 10/90 [00:02<00:19, 3.72it/s]\r"
            " 12%|#| 11/90 [00:03<00:19, 3.72it/s][rank3]:RuntimeError: CUDA error: an illegal memory access was "
            "encountered")
    assert reader.line_records(line) == [" 12%|#| 11/90 [00:03<00:19, 3.72it/s]",
                                         "[rank3]:RuntimeError: CUDA error: an illegal memory access was encountered"]


def test_the_record_after_a_carriage_return_names_its_writer_and_keeps_the_line_number():
    # the launcher's prefix ("[rank3]:") was not the line's start: no rank before
    text = ("starting\n 10%|#| 9/90 [00:02<00:19, 3.72it/s]\r 11%|#| 10/90 [00:02<00:19, 3.72it/s]"
            "[rank3]:RuntimeError: CUDA error: an illegal memory access was encountered\n")
    found = [e for e in _read(text) if e.kind == "cuda_error"]
    assert [(e.rank, e.line) for e in found] == [(3, 2)]
    assert found[0].text.startswith("[rank3]:RuntimeError")


def test_the_glued_watchdog_line_is_shown_as_its_record():
    found = [e for e in _read(GLUED + "\n") if e.kind == "nccl_timeout"]
    assert [(e.rank, e.line) for e in found] == [(0, 1)]
    assert found[0].text.startswith("[E ProcessGroupNCCL.cpp:458]")


def test_hostile_bars_are_linear():
    for line in ("1/1 [0<0, 1it/s, " * 20000, "1/1 [0<0, 1it/s]" * 20000, "\r" * 200000, "<" * 200000):
        assert cpu_seconds(lambda: reader.line_records(line)) < 1.0  # (CPU time: not a loaded host's wall clock)
