#!/usr/bin/env python3
"""Whose turn a VM's transfer waited on: the stack's or the guest's (bench/vm.sh VM_TURNS=1).

Usage: vm_turns.py CAPTURE.pcap [LABEL...]

CAPTURE is QEMU's `-object filter-dump` of the VM's netdev: every frame as QEMU passed it between
the guest's virtio-net and the stack's socket, stamped there. For each TCP connection that moved at
least 1 MiB one way (in the order they began; LABELs name them, e.g. "warm_down down up"), the time
from its first to its last data frame is cut at every frame into intervals, and each interval is
charged to whoever sent the frame that ends it:
  stack  the interval ends with a frame from the stack (data in a download, an ACK in an upload):
         the stack's reading, deciding and writing, and QEMU's reading of the socket;
  guest  it ends with a frame from the guest: QEMU's delivery, the guest's interrupts, its TCP and
         the application reading or writing, and QEMU's reading of the guest's queue.
The two add up to the transfer's time at QEMU's side. A stack that is waited for shows a large stack
share; when both stacks' shares are small, the guest's CPU sets the pace and no stack can go faster.
Also printed: the frames each way, and how many of the stack's turns took over 1 ms.
No dependencies beyond Python 3: the capture is read as classic pcap of Ethernet frames (IPv4).
"""
import struct
import sys

MIB = 1 << 20


def frames(path):
    """Yields (seconds, ethernet frame prefix) from a classic pcap file."""
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            return
        magic = struct.unpack("<I", head[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            endian = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            endian = ">"
        else:
            raise SystemExit(f"{path}: not a pcap file")
        scale = 1e-9 if magic in (0xA1B23C4D, 0x4D3CB2A1) else 1e-6
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            sec, frac, incl, _ = struct.unpack(endian + "IIII", rec)
            data = f.read(incl)
            if len(data) < incl:
                return
            yield sec + frac * scale, data


def tcp_of(frame):
    """(src, sport, dst, dport, payload length, a SYN without ACK) of an IPv4 TCP frame, or None."""
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    if ip[9] != 6 or len(ip) < ihl + 13:
        return None
    total = struct.unpack("!H", ip[2:4])[0]
    tcp = ip[ihl:]
    doff = (tcp[12] >> 4) * 4
    sport, dport = struct.unpack("!HH", tcp[:4])
    syn_only = tcp[13] & 0x12 == 0x02
    return ip[12:16], sport, ip[16:20], dport, total - ihl - doff, syn_only


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: vm_turns.py CAPTURE.pcap [LABEL...]")
    labels = sys.argv[2:]
    conns = {}  # key (guest addr, guest port, peer addr, peer port) -> list of (t, from_guest, payload)
    order = []
    for t, frame in frames(sys.argv[1]):
        p = tcp_of(frame)
        if p is None:
            continue
        src, sport, dst, dport, length, syn_only = p
        # The guest opens every connection of vm.sh: its SYN names the guest's side; a connection
        # whose SYN was not captured is left out.
        if syn_only:
            key = (src, sport, dst, dport)
            conns[key] = []
            order.append(key)
        if (src, sport, dst, dport) in conns:
            conns[(src, sport, dst, dport)].append((t, True, length))
        elif (dst, dport, src, sport) in conns:
            conns[(dst, dport, src, sport)].append((t, False, length))
    shown = 0
    for key in order:
        fr = conns[key]
        up = sum(n for _, g, n in fr if g)
        down = sum(n for _, g, n in fr if not g)
        if max(up, down) < MIB:
            continue
        label = labels[shown] if shown < len(labels) else f"connection {shown + 1}"
        shown += 1
        data_from_guest = up > down
        data = [i for i, (_, g, n) in enumerate(fr) if n > 0 and g == data_from_guest]
        first, last = data[0], data[-1]
        stack = guest = 0.0
        slow = 0
        for a, b in zip(fr[first:last], fr[first + 1:last + 1]):
            dt = b[0] - a[0]
            if b[1]:
                guest += dt
            else:
                stack += dt
                if dt > 0.001:
                    slow += 1
        span = fr[last][0] - fr[first][0]
        n_guest = sum(1 for _, g, _ in fr[first:last + 1] if g)
        n_stack = last - first + 1 - n_guest
        pct = lambda x: 100 * x / span if span > 0 else 0
        print(f"{label} ({max(up, down) / MIB:.0f} MiB {'up' if data_from_guest else 'down'}): "
              f"{span * 1000:.1f} ms at QEMU's side: stack's turn {stack * 1000:.1f} ms ({pct(stack):.0f} %, "
              f"{slow} turns over 1 ms), guest's turn {guest * 1000:.1f} ms ({pct(guest):.0f} %); "
              f"frames from the stack {n_stack}, from the guest {n_guest}")


if __name__ == "__main__":
    main()
