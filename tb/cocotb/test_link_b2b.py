"""Two iblink_link_ports back to back on Icarus Verilog (a wrapper made from the port's
header by iblink_tb.twin_top; link_b2b_tb.py), from docs/spec.md §1-§5 and §10 and the
modules' headers, not from the Rust code.

A sends IBA packets on every data VL to B over a wire with latency whose m_axis_phy_tready stalls
now and then (both ways: B's FCPs go back to A). B drains every VL at full rate but one,
stopped for a while. Checked:
- every packet B delivers is whole, as A's user gave it, with the VCRC of docs/spec.md §3
  (computed here, checked on the spec's check value and FCP example), per VL in order;
  B's verdict is good and its commit never an overrun; every error and overrun counter
  stays 0; at the end A's FCTBS and B's FCCL are what §4 says;
- A starts a packet only with the credits the wire has delivered to it (§4:
  (CL - CR) mod 4096 <= 2048) and never has more out than B's buffer holds; the stopped
  VL stops with less room left than its head packet needs, the other VLs keep delivering
  meanwhile, and it resumes once B drains;
- B drains the stopped VL within one minimum gap after an FCP for it; the next one,
  which carries all the room and would have let A's head packet go, is lost on the wire:
  with B's buffer empty, A starts nothing on that VL until the next FCP for it (the
  refresh, within the refresh period, the same FCCL) arrives, then resumes; every other
  FCP is counted good by its receiver; every VL gets an FCP each refresh period, and A's
  carry its FCTBS;
- the hold rule on both wires (a beat offered under tready low is offered again,
  unchanged).
"""

import pytest

from iblink_tb import build_root, run_icarus, twin_top

# The parameters the wrapper passes on (the tables the port powers up with keep their
# defaults).
KEEP = ("VLS", "DATA_WIDTH", "KEEP_WIDTH", "BUFFER_BLOCKS", "REFRESH_CLOCKS", "MIN_GAP_CLOCKS")


@pytest.mark.parametrize("vls,width", [(4, 32), (2, 64)])
def test_link_b2b(vls, width):
    params = {"VLS": vls, "DATA_WIDTH": width, "BUFFER_BLOCKS": 66, "REFRESH_CLOCKS": 1024, "MIN_GAP_CLOCKS": 128}
    env = {f"IBLINK_{k}": str(v) for k, v in params.items()}
    env["IBLINK_WIDTH"] = env.pop("IBLINK_DATA_WIDTH")
    top = twin_top("iblink_link_port", "link_b2b_top", build_root() / "link_b2b", shared=("clock",), keep=KEEP)
    run_icarus("link_b2b_top", params, "link_b2b_tb", "link_b2b", env, sources=[top])
