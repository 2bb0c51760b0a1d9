"""parsers/gpus.py: the one map between a GPU's PCI address, UUID and index (issue 24)."""

from types import SimpleNamespace

from parsers.gpus import GpuMap, by_gpu, gpu_key, problem_gpu

LABELS = [{"gpu_index": "0", "uuid": "GPU-AAA", "pci_bus_id": "0000:18:00"},
          {"gpu_index": "1", "uuid": "GPU-BBB", "pci_bus_id": "0000:5d:00"}]


def test_gpu_key_uses_the_one_normaliser():
    assert gpu_key("00000000:5D:00.0") == gpu_key("0000:5d:00") == gpu_key(" 5d:00.0 ") == "0000:5d:00"
    assert gpu_key("Some-Device.1") == "some-device" and gpu_key(None) == ""


def test_map_from_labels():
    m = GpuMap.from_labels(LABELS)
    assert len(m) == 2 and "0000:5d:00" in m and list(m) == ["0000:18:00", "0000:5d:00"]
    assert m.uuid("0000:5d:00") == "GPU-BBB" and m.index("0000:5d:00") == "1"
    assert m.names("0000:18:00") == {"gpu-aaa", "0000:18:00"} and m.names("0000:99:00") == frozenset()
    assert not GpuMap() and m.uuid(None) is None


def test_map_from_readings():
    r = [SimpleNamespace(entity="gpu", subject="gpu:0000:18:00", labels=LABELS[0]),
         SimpleNamespace(entity="ib_port", subject="ib:mlx5_0/1", labels={})]
    m = GpuMap.from_readings(r)
    assert list(m) == ["0000:18:00"] and m.names("0000:18:00") == {"gpu-aaa", "0000:18:00"}


def test_problem_gpu_and_lookups():
    p = SimpleNamespace(subject="gpu:0000:5D:00.0", details={"uuid": "GPU-BBB"})
    assert problem_gpu(p) == ("0000:5d:00", "GPU-BBB")
    table = {"gpu-bbb": "by uuid", "0000:18:00": "by pci"}
    assert by_gpu(table, "0000:5d:00", "GPU-BBB") == "by uuid"
    assert by_gpu(table, "0000:18:00", "") == "by pci" and by_gpu(None, "0000:18:00") is None


def test_device_ids_name_the_gpu_they_are_on():
    """The kubelet's / NVIDIA_VISIBLE_DEVICES's device ids (parsers/gpus.py device_gpu): a replica its GPU, a MIG
    device named by its parent (drivers before R470) that GPU, a R470+ MIG UUID itself (is_mig)."""
    from parsers.gpus import GpuMap, device_gpu, is_mig

    assert device_gpu("GPU-4039DFE4-0c97::3") == "gpu-4039dfe4-0c97"
    assert device_gpu("MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0") == "gpu-5c89852c-d268-c3f3-1b07-005d5ae1dc3f"
    assert device_gpu("MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f") == "mig-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"
    assert is_mig(device_gpu("MIG-c6d4f1ef-42e4")) and not is_mig(device_gpu("MIG-GPU-5c89852c/1/0"))
    m = GpuMap.from_labels([{"uuid": "GPU-AB", "pci_bus_id": "00000000:18:00.0"}])
    assert m.every == {"gpu-ab", "0000:18:00"} and GpuMap().every == frozenset()
