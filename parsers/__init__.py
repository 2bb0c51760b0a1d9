"""gpu-npd's pure core: log text in, findings out.

Imports nothing heavy and does no I/O of its own beyond the streams it is handed.

    from parsers import Classifier, Scanner
    finding = Classifier().classify("[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, ...")
    for finding in Scanner().scan(open("dmesg.txt", "rb"), name="dmesg.txt"): ...
"""

from .catalog import sxid_info, xid_info
from .classify import Classifier, all_keywords, keyword_prefilter, parse_line
from .correlate import WORKLOAD_KINDS, Cause, CauseIndex, cause_of, explain, likely_cause
from .envelope import Envelope, detect, join_cri
from .finding import (ATTRIBUTIONS, KINDS, SEVERITIES, Finding, amends, at_least, from_kernel, seen_at,
                      restated)
from .pci import normalize_pci
from .prefilter import Prefilter
from .scan import Scanner, after_hole, drop_holes, hold_back_cri_partials, scan_lines

__all__ = [
    "ATTRIBUTIONS", "WORKLOAD_KINDS", "Cause", "CauseIndex", "Classifier", "cause_of", "explain", "likely_cause", "Envelope", "Finding", "KINDS", "Prefilter", "SEVERITIES", "Scanner",
    "after_hole", "all_keywords", "keyword_prefilter", "amends", "at_least", "detect", "drop_holes", "from_kernel", "seen_at", "restated", "hold_back_cri_partials", "join_cri", "normalize_pci", "parse_line", "scan_lines",
    "sxid_info", "xid_info",
]
