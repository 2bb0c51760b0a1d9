"""TensorRT's start-up check naming the CUDA runtime's failure by its number (h150).  Every line is a real one, copied
verbatim from the thread beside it (tests/fixtures/realworld/workload-serving-2026c.yaml holds them with their
sources)."""

from __future__ import annotations

import pytest

from parsers import parse_line


@pytest.mark.parametrize("line", [
    # triton-inference-server/server #6413 (Triton's TensorRT backend, TensorRT 8's "Error Code 6")
    "E1011 08:02:59.085540 1 logging.cc:40] [runtime.cpp::isCudaInstalledCorrectly::38] Error Code 6: Internal Error "
    "(CUDA initialization failure with error 35. Please check your CUDA installation:  http://docs.nvidia.com/cuda/"
    "cuda-installation-guide-linux/index.html)",
    # lewes6369/TensorRT-Yolov3 #61 (TensorRT 5's "Cuda")
    "ERROR: Cuda initialization failure with error 35. Please check cuda installation:  http://docs.nvidia.com/cuda/"
    "cuda-installation-guide-linux/index.html.",
    # isarsoft/yolov4-triton-tensorrt #2 (TensorRT 7)
    "[08/20/2020-17:01:01] [E] [TRT] CUDA initialization failure with error 35. Please check your CUDA installation:  "
    "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
    # linghu8812/tensorrt_inference #173, vbanakha/edgePtychoNN #5 (8.6-10: "error: 35")
    "[11/05/2023-16:18:50] [W] [TRT] CUDA initialization failure with error: 35. Please check your CUDA installation:  "
    "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
    "  what():  CUDA initialization failure with error: 35. Please check your CUDA installation: http://docs.nvidia.com/"
    "cuda/cuda-installation-guide-linux/index.html In checkCudaInstalledAndPrintMemoryUsage at optimizer/api/"
    "builder.cpp:1238",
])
def test_a_driver_too_old_for_tensorrts_runtime_is_the_nodes_driver(line):
    """Was: nothing; error 35 is the runtime's "CUDA driver version is insufficient for CUDA runtime version"."""
    f = parse_line(line)
    assert (f.kind, f.attribution, f.action) == ("driver_unusable", "driver", "CHECK_DRIVER")


@pytest.mark.parametrize("line", [
    # Megvii-BaseDetection/YOLOX #515 (2), NVIDIA/TensorRT #149 (2, 100), traveller59/torch2trt #1 (1), NVIDIA/TensorRT
    # #1052 (222): no number of the driver's
    "[TensorRT] INTERNAL ERROR: [runtime.cpp::isCudaInstalledCorrectly::41] Error Code 6: Internal Error (CUDA "
    "initialization failure with error 2. Please check your CUDA installation:  http://docs.nvidia.com/cuda/"
    "cuda-installation-guide-linux/index.html)",
    "[E] [TRT] Cuda initialization failure with error 100. Please check cuda installation: http://docs.nvidia.com/cuda/"
    "cuda-installation-guide-linux/index.html.",
    "[TensorRT] ERROR: Cuda initialization failure with error 1. Please check cuda installation:  http://"
    "docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html.",
    "[TensorRT] ERROR: CUDA initialization failure with error 222. Please check your CUDA installation:  http://"
    "docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
])
def test_another_number_is_not_the_nodes_driver(line):
    assert parse_line(line) is None
