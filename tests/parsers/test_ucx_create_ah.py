"""UCX's failure to make the address handle to a peer's port (parsers/rules.py ucx_create_ah_failed): the fabric's."""
import pytest

from parsers import Classifier

# REAL: ai-dynamo/dynamo #814 (NIXL over UCX, two nodes on RoCE), vllm-project/aibrix #1771 (SGLang 2P2D's decode pod)
DYNAMO_814 = ("[1745499308.854013] [9fd0c21b0f7c:760  :0]       ib_device.c:1332 UCX  ERROR   ibv_create_ah(dlid=49152 "
              "sl=0 port=1 src_path_bits=0 dgid=fe80::5aa2:e1ff:fefe:c130 flow_label=0xffffffff sgid_index=0 "
              "traffic_class=0) for UD mlx5 connect on mlx5_0 failed: No such device")
AIBRIX_1771 = ("- D1 log: ib_device.c:1380 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 "
               "dgid=fe80::9e63:c0ff:fe76:303c flow_label=0xffffffff sgid_index=0 traffic_class=0) for RC DEVX QP "
               "connect on mlx5_8 failed: No such device")


@pytest.mark.parametrize("line, device, error", [
    (DYNAMO_814, "mlx5_0", "No such device"), (AIBRIX_1771, "mlx5_8", "No such device")])
def test_ucxs_failed_address_handle_is_the_fabrics(line, device, error):
    f = Classifier().classify(line)  # was: nothing
    assert (f.kind, f.severity, f.attribution) == ("ib_completion_error", "error", "fabric")
    assert (f.details["netdev"], f.details["ucx_error"]) == (device, error)


def test_ucxs_teardown_after_it_stays_silent():
    assert Classifier().classify("[1745499308.859717] [9fd0c21b0f7c:760  :0]        rc_iface.c:796  UCX  WARN  some "
                                 "eps were not destroyed") is None
