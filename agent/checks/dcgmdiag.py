"""`dcgmi diag` output -> which test failed on which GPU and why (pure; the `dcgm` built-in check's reader).

Two forms, every era (fixtures and their sources: tests/fixtures/dcgm/SOURCES.md):

- JSON (`dcgmi diag -r N -j`, what the check asks for): 3.x under "DCGM GPU Diagnostic" with results per
  `gpu_ids`; 4.x under "DCGM Diagnostic" with results per `entity_group`/`entity_id`, each result's
  `warnings` carrying `error_id` (a DCGM_FR_* code), `error_severity` and the text, and a `test_summary`.
- The table (the fallback, when stdout is not JSON): one row per test, the result in the right cell. A test's
  per-GPU results sit on continuation rows without its name (3.x `Fail - GPU: 0`, 4.x `GPU0: Fail`); its
  error text on `Warning` rows (4.x `Warning: GPU0`), wrapped over continuation rows cut mid-word at a fixed
  width; `Info` rows are information, never a failure; a Deployment `Error` row means the run stopped there.

A result is Pass, Fail, Warn or Skip (2.x/3.x: `Fail - All` when every GPU has it; 4.x: `Not Run`, a skip): Fail is
a failure, Warn a warning (DCGM's own distinction), the others healthy. dcgmi prints a Warn as "Fail" in its JSON
and on the 4.x table's entity rows; there the code (WARN_ONLY_CODES) or the test's own row tells it apart. A table
without its closing border is truncated: what it shows of failures still counts, but a truncated table without
any, or a result cell of no known status, cannot be taken as a pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from parsers.dcgm import DCGM_SEVERITIES as SEVERITIES, FR_CODES, NAMES_BEFORE_4  # DCGM_FR_* by error_id (one table)

STATUSES = {"pass": "pass", "fail": "fail", "warn": "warn", "warning": "warn", "skip": "skip", "not run": "skip"}

# dcgmi prints a Warn result as "Fail" in its JSON (every era) and on the 4.x table's per-entity rows
# (dcgmi/Diag.cpp `HelperDisplayDiagResult` without DDR_DISPLAY_WARN). What tells them apart there is the code: DCGM
# raises these only with a Warn result (its software test, nvvs Software.cpp `SetResult(.., NVVS_RESULT_WARN)`:
# persistence mode off, graphics processes on the GPU, a CUDA variable set, a device count mismatch, the SRAM
# threshold count), so a "Fail" whose every error is one of them is DCGM's Warn.
WARN_ONLY_CODES = frozenset(FR_CODES.index(n) for n in (
    "DEVICE_COUNT_MISMATCH", "GRAPHICS_PROCESSES", "BAD_CUDA_ENV", "PERSISTENCE_MODE", "SRAM_THRESHOLD"))


def fr_code(error_id: object, before_4: bool = False) -> str:
    """DCGM_FR_* of an error_id ("" for 0/none; a number past the table stays a number), by the names of 4.0 on, or
    of 3.x where `before_4`."""
    if isinstance(error_id, bool) or not isinstance(error_id, int) or error_id <= 0:
        return ""
    if error_id >= len(FR_CODES):
        return f"DCGM error {error_id}"
    return f"DCGM_FR_{NAMES_BEFORE_4.get(error_id) if before_4 and error_id in NAMES_BEFORE_4 else FR_CODES[error_id]}"


@dataclass
class Result:
    """One test's outcome: its status, the entities ("GPU 0") per status, and its error texts."""
    test: str
    status: str = "pass"  # the worst of its results: fail > warn > pass/skip
    entities: dict[str, list[str]] = field(default_factory=dict)  # status -> ["GPU 0", ...]
    errors: list[str] = field(default_factory=list)  # "GPU 0: DCGM_FR_X [severity] text"

    def add(self, status: str, entity: str = "") -> None:
        if entity and entity not in self.entities.setdefault(status, []):
            self.entities[status].append(entity)
        rank = ("pass", "skip", "warn", "fail")
        if status in rank and rank.index(status) > rank.index(self.status if self.status in rank else "pass"):
            self.status = status


@dataclass
class Report:
    results: list[Result] = field(default_factory=list)
    form: str = ""  # "json" | "table" | ""
    complete: bool = False  # the whole output was read (JSON parsed, or the table's closing border seen)
    runtime_error: str = ""
    version: str = ""
    unread: list[str] = field(default_factory=list)  # tests whose result said no known status (table cell, JSON)

    def by_status(self, status: str) -> list[Result]:
        return [r for r in self.results if r.status == status]

    def unreadable(self, test: str) -> None:
        """`test` said no known status somewhere (a table's cell, a JSON result): never taken as a pass; named once."""
        if test not in self.unread:
            self.unread.append(test)


# ---- JSON -----------------------------------------------------------------------------------------------

def _entity(res: dict) -> str:
    if "entity_id" in res:
        return f"{res.get('entity_group') or 'GPU'} {res['entity_id']}"
    ids = res.get("gpu_ids", res.get("gpu_id"))
    if ids is None or ids == "":
        return ""
    return f"GPU {ids}" if isinstance(ids, int) or "," not in str(ids) else f"GPUs {ids}"


def _warning_text(w: object, entity: str, before_4: bool) -> str:
    if isinstance(w, str):
        return f"{entity}: {w}" if entity else w
    if not isinstance(w, dict):
        return ""
    text = " ".join(str(w.get("warning") or w.get("message") or "").split())
    code = fr_code(w.get("error_id"), before_4)
    sev = w.get("error_severity")
    sev = SEVERITIES[sev] if isinstance(sev, int) and 0 <= sev < len(SEVERITIES) else ""
    head = " ".join(x for x in (code, f"[{sev}]" if sev else "") if x)
    body = f"{head} {text}".strip()
    return f"{entity}: {body}" if entity else body


def _json_status(res: dict) -> str | None:
    """A JSON result's status, a "Fail" that carries only DCGM's warn-only codes read as the Warn it is; None for a
    status it states that is none known (never taken as a pass, as the table's cell: `Report.unread`); a result
    stating none is a pass (its test's summary, where there is one, says more)."""
    stated = str(res.get("status", "")).lower()
    status = STATUSES.get(stated, "pass" if not stated else None)
    if status is None:
        return None
    codes = [w.get("error_id") if isinstance(w, dict) else None for w in res.get("warnings") or []]
    if status == "fail" and codes and all(c in WARN_ONLY_CODES for c in codes):
        return "warn"
    return status


def parse_json(text: str) -> Report | None:
    """The report of `dcgmi diag -j` output, or None when it holds no JSON document (anything before the
    first "{", as "Successfully ran diagnostic for group.", is skipped)."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        doc = json.loads(text[start:])
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    root = doc.get("DCGM Diagnostic", doc.get("DCGM GPU Diagnostic"))
    before_4 = "DCGM Diagnostic" not in doc  # 3.x's name of the document (NVIDIA/DCGM nvvs NvvsJsonStrings.h NVVS_NAME)
    if not isinstance(root, dict):
        return None
    rep = Report(form="json", complete=True, runtime_error=str(root.get("runtime_error") or ""),
                 version=str((doc.get("metadata") or {}).get("version") or root.get("version") or ""))
    for cat in root.get("test_categories") or []:
        for test in (cat or {}).get("tests") or [] if isinstance(cat, dict) else []:
            if not isinstance(test, dict):
                continue
            r = Result(str(test.get("name") or "unknown"))
            seen: set[str] = set()
            for res in test.get("results") or []:
                if not isinstance(res, dict):
                    continue
                entity = _entity(res)
                status = _json_status(res)
                if status is None:
                    rep.unreadable(r.test)
                    continue
                r.add(status, entity)
                for w in res.get("warnings") or []:
                    t = _warning_text(w, entity, before_4)
                    if t and t not in seen:
                        seen.add(t)
                        r.errors.append(t)
            summary = test.get("test_summary")
            if isinstance(summary, dict):
                status = _json_status(summary)
                if status == "fail" and not summary.get("warnings") and r.status == "warn":
                    status = "warn"  # 4.2's summary restates its entities' Warn as "Fail", without their errors
                if status is None:
                    rep.unreadable(r.test)
                else:
                    r.add(status)
                for w in summary.get("warnings") or []:
                    t = _warning_text(w, "", before_4)
                    if t and t not in seen and not any(e.endswith(t) for e in seen):
                        seen.add(t)
                        r.errors.append(t)
            rep.results.append(r)
    return rep


# ---- the table ------------------------------------------------------------------------------------------

_SECTION = re.compile(r"^[|+]-{3,}\s+(\w[\w ]*?)\s+-+")
# 2.x/3.x: `Fail - GPU: 0`, `Pass - GPUs: 1, 2`, and `Fail - All` when every GPU has the same result
_STATUS_3X = re.compile(r"^(Pass|Fail|Warn|Warning|Skip|Not Run)(?:\s*-\s*(?:(All)|GPUs?:\s*([\d,\s]+)))?$", re.I)
_STATUS_4X = re.compile(r"^([A-Za-z]+)\s?(\d+):\s*(Pass|Fail|Warn|Skip|Not Run)$", re.I)
_ENTITY_IN_NAME = re.compile(r"^(Warning|Error|Info):\s*([A-Za-z]+)\s?(\d+)$")
_GPU_IN_TEXT = re.compile(r"^GPU\s?(\d+)(?!\d)")  # 2.x glues its own prefix on: "GPU 0GPU 0's NvLink link 0 .."
_MESSAGE_ROWS = ("warning", "error", "info")


def _cells(line: str) -> tuple[str, str] | None:
    """(name, raw right cell) of a table row `| name | cell |`, or None."""
    if not line.startswith("|"):
        return None
    second = line.find("|", 1)
    last = line.rfind("|")
    if second < 0 or last <= second:
        return None
    return line[1:second].strip(), line[second + 1:last]


def parse_table(text: str) -> Report:
    rep = Report(form="table")
    section, current = "", None
    message: list[str] | None = None  # the chunks of the Warning/Error row being read
    msg_entity = ""
    msg_kind = ""

    def close_message() -> None:
        nonlocal message
        if message is not None and msg_kind != "info":
            body = " ".join("".join(message).split())
            entity = msg_entity
            m = _GPU_IN_TEXT.match(body)
            if not entity and m:
                entity = f"GPU {m.group(1)}"
            target = current
            if target is None:  # a Deployment Error row before any test: the run stopped there
                target = Result(section or "Diagnostic")
                rep.results.append(target)
            if msg_kind == "error":
                target.add("fail", entity)
            if entity and not m:
                body = f"{entity}: {body}"
            target.errors.append(body)
        message = None

    lines = [ln.rstrip() for ln in text.splitlines()]
    for line in lines:
        sec = _SECTION.match(line)
        if sec:
            close_message()
            section, current = sec.group(1).strip(), None
            continue
        cells = _cells(line)
        if cells is None:
            continue
        name, raw = cells
        value = raw.strip()
        if set(raw.strip()) <= {"=", "-", "+"} or (name, value) == ("Diagnostic", "Result"):
            continue  # the header; 2.x/3.x's test of that name (the GPU stress test) is a row like any other
        if section == "Metadata":
            if name == "DCGM Version":
                rep.version = value
            continue
        kind = name.split(":")[0].strip().lower()
        if kind in _MESSAGE_ROWS:
            close_message()
            m = _ENTITY_IN_NAME.match(name)
            msg_kind, msg_entity = kind, (f"{m.group(2)} {m.group(3)}" if m else "")
            width = max(1, len(raw) - 3)  # 3.x: " " + the chunk + 2 spaces of padding
            message = [raw[1:1 + width]]
            continue
        if not name:
            s3, s4 = _STATUS_3X.match(value), _STATUS_4X.match(value)
            if current is not None and (s3 or s4):
                close_message()
                _add_status(current, s3, s4)
            elif message is not None:
                width = max(1, len(raw) - 3)
                message.append(raw[1:1 + width])
            continue
        close_message()
        current = Result(name)
        rep.results.append(current)
        s3, s4 = _STATUS_3X.match(value), _STATUS_4X.match(value)
        if not (s3 or s4):
            rep.unreadable(name)
        _add_status(current, s3, s4)
    close_message()
    tail = [ln for ln in lines if ln.strip()]
    rep.complete = bool(tail) and tail[-1].startswith("+") and set(tail[-1]) <= {"+", "-"}
    return rep


def _add_status(r: Result, s3: re.Match | None, s4: re.Match | None) -> None:
    if s4:
        status = STATUSES[s4.group(3).lower()]
        if status == "fail" and r.status == "warn":  # 4.x prints a Warn test's entities as "Fail"
            status = "warn"
        r.add(status, f"{s4.group(1)} {s4.group(2)}")
    elif s3:
        status = STATUSES[s3.group(1).lower()]
        gpus = [g for g in re.split(r"[,\s]+", s3.group(3) or "") if g]
        if not gpus:
            r.add(status, "all GPUs" if s3.group(2) else "")
        for g in gpus:
            r.add(status, f"GPU {g}")


def parse(text: str) -> Report:
    """JSON when the output holds a diagnostic document, else the table."""
    return parse_json(text) or parse_table(text)


# ---- the check's message --------------------------------------------------------------------------------

def _describe(r: Result, status: str, room: int = 160) -> str:
    ents = r.entities.get(status) or []
    errors = r.errors
    if not ents:  # a test-level status: the entities its errors name
        ents = sorted({e.split(":")[0] for e in errors if re.match(r"^[A-Za-z]+ \d+:", e)})
    where = f" on {', '.join(ents)}" if ents else ""
    if len(ents) == 1:  # "GPU 0: ..." under "on GPU 0" says it twice
        errors = [e.removeprefix(f"{ents[0]}: ") for e in errors]
    text = "; ".join(errors)
    if len(text) > room:
        text = text[: room - 3].rstrip() + "..."
    return f"{r.test}{where}" + (f" ({text})" if text else "")


def summary(rep: Report, level: object) -> tuple[str, str]:
    """("fail" | "warn" | "pass" | "unknown", message) of a report."""
    what = f"dcgmi diag -r {level}"
    failed, warned = rep.by_status("fail"), rep.by_status("warn")
    if failed:
        msg = f"{what} failed: " + "; ".join(_describe(r, "fail") for r in failed)
        if warned:
            msg += "; warnings: " + "; ".join(_describe(r, "warn", 80) for r in warned)
        return "fail", msg
    if rep.runtime_error:
        return "unknown", f"{what}: {' '.join(rep.runtime_error.split())}"
    if not rep.results:
        return "unknown", f"{what}: no test results in its output"
    if not rep.complete:
        return "unknown", f"{what}: output cut short after {len(rep.results)} tests, none failed"
    if rep.unread:
        return "unknown", f"{what}: unreadable result of {', '.join(rep.unread)}"
    if warned:
        return "warn", f"{what} passed with warnings: " + "; ".join(_describe(r, "warn") for r in warned)
    return "pass", f"{what} passed ({len(rep.results)} tests)"
