"""Two Ethernet flow-control ports back to back through a wire that stalls, on Icarus
Verilog, from docs/spec.md §9 (PAUSE/PFC) and §10 (the wire side) and docs/pfc.md, not
from the Rust code.

- iblink_eth_port, two instances (A and B) in a wrapper made from the port's header
  (iblink_tb.twin_top), 3 queues at 64 bits, PFC mode. A's users send scapy-built
  802.1Q frames (a priority of the queue's mask, queue and sequence number in the
  payload, good FCS) on every queue to B; the wire carries each beat 24 clocks each
  way behind a MAC that stalls (20 bytes of preamble and gap a frame, as a 10GbE MAC's
  deficit, and random stalls of 1 to 16 clocks). B reads two queues at full rate and
  one at 15 % of its clocks; that queue's RX-fill trigger (RFA with the headroom of
  docs/pfc.md "Headroom" for this wire) makes B send PFC frames to A.
- Every frame B's readers get is the one A's user sent (FCS good), in order per queue;
  nothing is dropped anywhere; A's `paused` shows only the slow queue's priorities, for
  a quarter of the clocks or more, and A never starts a frame of a held priority.
- Every frame on B's wire is decoded by scapy (MACControlClassBasedFlowControl): 64
  bytes, FCS good, DA 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0101, enable
  vector exactly the slow queue's priorities, their times its pause quanta or 0 (a
  release, only after a pause), the other times 0.
- The rates over the traffic clocks: the slow queue gets at least 90 % of what its
  reader takes, each fast queue at least 90 % of its share of what the wire can carry
  (from the MAC's gap and stalls, not from a previous run), and all of them at least
  95 % of that.
- A frame marked bad on its last beat (s_axis_mac_tuser) injected on each wire, a data
  frame into B and a PFC frame naming every priority into A: `rx_bad` pulses once on
  each port, nothing of it is read, A holds no priority for it.
- The AXI4-Stream hold rule on both wires (m_axis_mac) and on B's receive streams
  (m_axis_rx, the slow reader's tready random): a beat offered while tready is low is
  offered again, unchanged.

It found that iblink_eth_rxbuf wrote a word at `mem[commit_ptr + idx]`, relying on the
sum wrapping at 2^ADDR_BITS inside the index. Simulators disagree on that
(steveicarus/iverilog#515: Verilator and Vivado wrap, Icarus does not; llvm/circt#4170:
VCS does not either): on Icarus, once a queue's ring wrapped, a reader got stale words
(clock 3172, queue 2). The address is now an ADDR_BITS-wide wire.
"""

from iblink_tb import build_root, run_icarus, twin_top

PARAMS = {"QUEUES": 3, "DATA_WIDTH": 64, "RX_ADDR_BITS": 10, "TX_ADDR_BITS": 8}


def test_eth_b2b():
    top = twin_top("iblink_eth_port", "iblink_eth_b2b", build_root() / "eth_b2b")
    run_icarus("iblink_eth_b2b", PARAMS, "eth_b2b_tb", "eth_b2b", {}, sources=[top])
