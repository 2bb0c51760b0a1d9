"""parsers/decoded.py: the one reader of compressed streams, `gpu-npd parse` / `gpu-npd triage`'s (offline/inputs.py)
and the agent's rotated pod logs' (agent/sources/podlogs.py).

The lines: FunASR #2006's log (tests/fixtures/incidents/funasr-2006-oom, real lines, its source.md), compressed here by
Python's gzip at test time.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from parsers.decoded import CODECS, GZIP, OUT_CHUNK, Codec, Decoded

LOG = (Path(__file__).parents[1] / "fixtures" / "incidents" / "funasr-2006-oom" / "logs" / "train.log").read_bytes()


def decoded(data: bytes, chunk: int = 1 << 16, codec: Codec = GZIP) -> tuple[bytes, str | None]:
    reader = Decoded(io.BufferedReader(io.BytesIO(data)), codec)  # type: ignore[arg-type]
    out = b""
    while piece := reader.read(chunk):
        out += piece
    return out, reader.damage


def test_a_gz_cut_anywhere_gives_every_byte_that_decodes_then_says_so():
    """Cut at every byte: all that zlib decodes of what is left, then `damage` saying it was cut (gzip.GzipFile raises
    at the read that meets the cut, that read's bytes lost with it); whole, the log and no damage."""
    data = gzip.compress(LOG)
    assert decoded(data) == (LOG, None)
    for cut in range(len(GZIP.magic), len(data)):  # (fewer bytes than the magic: no stream begun, as an empty file)
        out, damage = decoded(data[:cut], chunk=97)
        assert out == zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(data[:cut]), cut
        assert damage is not None and "truncated" in damage, cut


def test_a_long_gz_cut_in_its_middle_gives_all_before_the_cut():
    """Longer than a decompressor call's bound (OUT_CHUNK): the cut's last decodable bytes are given too."""
    text = LOG * (3 * OUT_CHUNK // len(LOG))
    data = gzip.compress(text)
    out, damage = decoded(data[: len(data) // 2])
    assert out == zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(data[: len(data) // 2]) and len(out) > OUT_CHUNK
    assert text.startswith(out) and "truncated" in damage


def test_members_zero_padding_and_trailing_bytes_read_as_gzip_reads_them():
    """Concatenated members (`gzip -c a >> b`) one after another; zeros after the last (a crash's zeroed tail, tape
    padding) and bytes that are no member ignored: no damage."""
    half = len(LOG) // 2
    two = gzip.compress(LOG[:half]) + gzip.compress(LOG[half:])
    assert decoded(two) == (LOG, None)
    assert decoded(two + bytes(4096)) == (LOG, None)
    assert decoded(two + b"not a gzip member") == (LOG, None)


# codec -> (its compressor, its tool's decompression to stdout)
TOOLS = {"gzip": (gzip.compress, ("gzip", "-dc")), "xz": (lzma.compress, ("xz", "-dc")),
         "bzip2": (bz2.compress, ("bzip2", "-dc"))}


@pytest.mark.parametrize("codec", [c for c in CODECS if c.name in TOOLS], ids=lambda c: c.name)
def test_a_later_stream_cut_inside_its_magic_bytes_is_said_as_its_tool_says_it(codec, tmp_path):
    """A stream after the first cut inside its magic bytes (a copy of `gzip -c a >> b` stopped a byte into the second
    member; 1 to 5 of xz's 6) is a stream cut short: every byte before it, and `damage` says so, as gzip(1) ("unexpected
    end of file"), xz(1) ("Unexpected end of input") and bzip2(1) ("Compressed file ends unexpectedly") fail on it
    (checked with the tools where installed).  Was no damage: the bytes read as trailing ones that are no stream."""
    compress, tool = TOOLS[codec.name]
    first = compress(LOG[:4096])
    for cut in range(1, len(codec.magic)):
        data = first + bytes(8) + codec.magic[:cut]  # (zero padding before it, skipped as ever)
        assert decoded(data, chunk=97, codec=codec) == (
            LOG[:4096], f"{codec.name} stream truncated after {len(data)} compressed bytes"), cut
        if shutil.which(tool[0]):
            path = tmp_path / f"cut{cut}"
            path.write_bytes(first + codec.magic[:cut])
            done = subprocess.run([*tool, str(path)], capture_output=True, check=False)
            assert done.returncode != 0 and done.stdout == LOG[:4096], (cut, done.stderr)
    assert decoded(first + codec.magic[:1] + b"!", codec=codec) == (LOG[:4096], None)  # (no stream: ignored)


def test_one_reader_for_the_offline_inputs_and_the_agents_pod_logs():
    from agent.sources import podlogs
    from offline import inputs

    assert podlogs.Decoded is inputs.Decoded is Decoded
