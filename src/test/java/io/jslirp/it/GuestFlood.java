package io.jslirp.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/**
 * Floods a guest sends to the gateway, written by a Python script in the namespace: raw frames
 * into tap0 through an AF_PACKET socket (SYNs, DHCP with made-up MACs, ARP claims), or ordinary
 * UDP datagrams. Every frame is addressed to 10.0.2.2 (DHCP: to the broadcast address, as DHCP
 * is), so nothing beyond the gateway, i.e. the host's loopback, is reached.
 */
final class GuestFlood {
    private GuestFlood() {}

    /**
     * argv: mode (syn|udp|dhcp|arp), gateway MAC, tap MAC, count, low port, high port, ports to
     * leave out (comma-separated; listeners on the host's loopback). Prints "name=value" figures.
     */
    static final String SCRIPT = """
            import errno, os, random, socket, struct, sys, threading, time
            mode, gw, me = sys.argv[1], bytes.fromhex(sys.argv[2].replace(':', '')), bytes.fromhex(sys.argv[3].replace(':', ''))
            count, lo, hi = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
            skip = {int(p) for p in sys.argv[7].split(',') if p}
            ports = [p for p in range(lo, hi + 1) if p not in skip]
            GW, DNS, ME = socket.inet_aton('10.0.2.2'), socket.inet_aton('10.0.2.3'), socket.inet_aton('10.0.2.100')
            BCAST, ZERO = b'\\xff' * 4, b'\\0' * 4

            def csum(b):
                if len(b) % 2: b += b'\\0'
                s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
                while s >> 16: s = (s & 0xffff) + (s >> 16)
                return (~s) & 0xffff

            def ip(proto, src, dst, payload):
                h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), random.getrandbits(16), 0x4000, 64, proto, 0, src, dst)
                return h[:10] + struct.pack('!H', csum(h)) + h[12:] + payload

            def udp(src, dst, sport, dport, payload):
                u = struct.pack('!HHHH', sport, dport, 8 + len(payload), 0) + payload
                c = csum(src + dst + struct.pack('!BBH', 0, 17, len(u)) + u) or 0xffff
                return u[:6] + struct.pack('!H', c) + u[8:]

            raw = None
            def send(frame):
                global raw
                if raw is None:
                    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
                    raw.bind(('tap0', 0))
                for _ in range(1000):
                    try:
                        raw.send(frame)
                        return 1
                    except OSError as e:  # the tap's queue is full: wait for jslirp to read
                        if e.errno not in (errno.ENOBUFS, errno.EAGAIN): raise
                        time.sleep(0.001)
                return 0

            sent = 0
            t0 = time.time()
            if mode == 'syn':
                for i in range(count):
                    dport, sport = ports[i % len(ports)], 20000 + i // len(ports)
                    t = struct.pack('!HHIIBBHHH', sport, dport, random.getrandbits(32), 0, 5 << 4, 0x02, 64240, 0, 0)
                    c = csum(ME + GW + struct.pack('!BBH', 0, 6, len(t)) + t)
                    sent += send(gw + me + b'\\x08\\x00' + ip(6, ME, GW, t[:16] + struct.pack('!H', c) + t[18:]))
            elif mode == 'udp':
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                for i in range(count):
                    while True:
                        try:
                            s.sendto(b'flood', ('10.0.2.2', ports[i % len(ports)]))
                            sent += 1
                            break
                        except OSError as e:  # ENOBUFS, or a refusal reported for an earlier datagram
                            if e.errno not in (errno.ENOBUFS, errno.EAGAIN, errno.ECONNREFUSED, errno.EACCES): raise
                            if e.errno in (errno.ENOBUFS, errno.EAGAIN): time.sleep(0.001)
            elif mode == 'dhcp':
                # DISCOVER then REQUEST (for a pool address in turn) from `count` made-up MACs; replies counted
                replies = {2: 0, 5: 0, 6: 0}
                sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
                # a thousand replies or more come at once, between the flood's own frames: a default
                # buffer (rmem_default) drops some, an ACK among them (SO_RCVBUFFORCE: the test runs as root)
                sniff.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)
                sniff.bind(('tap0', 0))
                sniff.settimeout(0.5)
                stop = False
                def listen():
                    while not stop:
                        try:
                            f, addr = sniff.recvfrom(2048)
                        except socket.timeout:
                            continue
                        if addr[2] == socket.PACKET_OUTGOING or len(f) < 282 or f[23] != 17 or f[34:36] != b'\\x00\\x43': continue
                        o = 42 + 240
                        while o + 2 <= len(f) and f[o] != 255:
                            if f[o] == 53: replies[f[o + 2]] = replies.get(f[o + 2], 0) + 1; break
                            o += 2 + f[o + 1]
                listener = threading.Thread(target=listen); listener.start()
                def dhcp(mac, xid, kind, want):
                    b = struct.pack('!BBBBIHH4s4s4s4s16s64s128s', 1, 1, 6, 0, xid, 0, 0x8000, ZERO, ZERO, ZERO, ZERO, mac + b'\\0' * 10, b'', b'')
                    b += b'\\x63\\x82\\x53\\x63' + bytes([53, 1, kind])
                    if want: b += bytes([50, 4]) + want + bytes([54, 4]) + GW
                    b += b'\\xff'
                    return send(b'\\xff' * 6 + mac + b'\\x08\\x00' + ip(17, ZERO, BCAST, udp(ZERO, BCAST, 68, 67, b)))
                for i in range(count):
                    mac = bytes([0x02, 0x66]) + struct.pack('!I', i)
                    sent += dhcp(mac, i, 1, None)
                    sent += dhcp(mac, i, 3, socket.inet_aton('10.0.2.%d' % (15 + i % 16)))
                time.sleep(1)
                stop = True
                listener.join()
                print('offers=%d acks=%d naks=%d' % (replies[2], replies[5], replies[6]))
            elif mode == 'arp':
                # "10.0.2.2 (or .3) is at <MAC>": gratuitous requests and replies, with the guest's own MAC and made-up ones
                for i in range(count):
                    mac = me if i % 2 else bytes([0x02, 0x77]) + struct.pack('!I', i)
                    claimed = GW if i % 4 < 2 else DNS
                    op = 1 if i % 8 < 4 else 2
                    a = struct.pack('!HHBBH6s4s6s4s', 1, 0x0800, 6, 4, op, mac, claimed, b'\\xff' * 6 if op == 2 else b'\\0' * 6, claimed)
                    sent += send(b'\\xff' * 6 + mac + b'\\x08\\x06' + a)
            print('mode=%s sent=%d seconds=%.2f ports=%d' % (mode, sent, time.time() - t0, len(ports)))
            """;

    /** Ports in use on the host's loopback (TCP listeners, bound UDP sockets on 127.0.0.1 or 0.0.0.0): the flood leaves them alone. */
    static String hostPortsInUse() {
        Set<Integer> ports = new TreeSet<>();
        collect(Path.of("/proc/net/tcp"), true, ports);
        collect(Path.of("/proc/net/udp"), false, ports);
        StringBuilder b = new StringBuilder();
        for (int p : ports) b.append(b.isEmpty() ? "" : ",").append(p);
        return b.toString();
    }

    private static void collect(Path table, boolean listenersOnly, Set<Integer> ports) {
        try {
            java.util.List<String> lines = Files.readAllLines(table);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.strip().split("\\s+");
                String[] local = f[1].split(":");
                boolean loopbackOrAny = local[0].equals("0100007F") || local[0].equals("00000000");
                if (loopbackOrAny && (!listenersOnly || f[3].equals("0A"))) ports.add(Integer.parseInt(local[1], 16));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
