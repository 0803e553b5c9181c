package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 8: hostile frames written into tap0 with an AF_PACKET socket, each kind checked against
 * the counter it must move (MalformedFramesIT covers truncated and inconsistent headers): wrong
 * checksums, TCP option lists that never end, fragments that never complete or overlap, and blind
 * RST/SYN injection into an established connection (RFC 5961); over IPv6 too, extension headers
 * (what is behind them taken, what is unknown answered with a Parameter Problem) and fragments.
 * All frames go to the gateway (10.0.2.2, or fd00::2 over IPv6).
 */
class HostileFramesIT {
    /** Helpers shared by the modes; argv: mode, gateway MAC, tap MAC, then the mode's own. */
    static final String COMMON = """
            import random, select, socket, struct, sys, time
            mode, gw, me = sys.argv[1], bytes.fromhex(sys.argv[2].replace(':', '')), bytes.fromhex(sys.argv[3].replace(':', ''))
            GW, ME = socket.inet_aton('10.0.2.2'), socket.inet_aton('10.0.2.100')
            raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
            raw.bind(('tap0', 0))

            def csum(b):
                if len(b) % 2: b += b'\\0'
                s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
                while s >> 16: s = (s & 0xffff) + (s >> 16)
                return (~s) & 0xffff

            def ip(proto, payload, ident=None, frag=0x4000, bad=False):
                ident = random.getrandbits(16) if ident is None else ident
                h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), ident, frag, 64, proto, 0, ME, GW)
                c = csum(h) ^ (0x5a5a if bad else 0)
                return h[:10] + struct.pack('!H', c) + h[12:] + payload

            def l4sum(proto, seg, bad=False):
                c = csum(ME + GW + struct.pack('!BBH', 0, proto, len(seg)) + seg)
                return (c ^ 0x5a5a) if bad else (c or 0xffff)

            def tcp(sport, dport, seq, ack, flags, options=b'', payload=b'', bad=False, window=64240):
                doff = (20 + len(options)) // 4
                t = struct.pack('!HHIIBBHHH', sport, dport, seq, ack, doff << 4, flags, window, 0, 0) + options + payload
                return t[:16] + struct.pack('!H', l4sum(6, t, bad)) + t[18:]

            def udp(sport, dport, payload, bad=False):
                u = struct.pack('!HHHH', sport, dport, 8 + len(payload), 0) + payload
                return u[:6] + struct.pack('!H', l4sum(17, u, bad)) + u[8:]

            def icmp_echo(ident, seq, payload, bad=False):
                m = struct.pack('!BBHHH', 8, 0, 0, ident, seq) + payload
                c = csum(m) ^ (0x5a5a if bad else 0)
                return m[:2] + struct.pack('!H', c) + m[4:]

            def send_ip(packet): raw.send(gw + me + b'\\x08\\x00' + packet)

            def ip6_setup():
                # the guest's own (SLAAC) address, found without sending anything
                global ME6, GW6
                own = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
                own.connect(('fd00::2', 9))
                ME6, GW6 = socket.inet_pton(socket.AF_INET6, own.getsockname()[0]), socket.inet_pton(socket.AF_INET6, 'fd00::2')

            def l6sum(proto, seg, bad=False):
                c = csum(ME6 + GW6 + struct.pack('!IxxxB', len(seg), proto) + seg)
                return (c ^ 0x5a5a) if bad else (c or 0xffff)

            def send_ip6(proto, payload):
                raw.send(gw + me + b'\\x86\\xdd' + struct.pack('!IHBB16s16s', 6 << 28, len(payload), proto, 64, ME6, GW6) + payload)

            def options6(next_header, options=b''):
                # a hop-by-hop or destination options header holding options, padded with PadN (or Pad1) to 8 bytes
                total = (2 + len(options) + 7) // 8 * 8
                pad = total - 2 - len(options)
                options += b'\\0' if pad == 1 else (bytes([1, pad - 2]) + b'\\0' * (pad - 2) if pad > 1 else b'')
                return bytes([next_header, total // 8 - 1]) + options

            def fragment6(next_header, ident, offset, more, data):
                return struct.pack('!BBHI', next_header, 0, offset | more, ident) + data

            def echo6(ident, seq, payload):
                m = struct.pack('!BBHHH', 128, 0, 0, ident, seq) + payload
                return m[:2] + struct.pack('!H', l6sum(58, m)) + m[4:]

            def echo_reply6(ident):
                # an echo reply to ident, whole or the first of its fragments
                return lambda p: (p[6] == 58 and p[40] == 129 and p[44:46] == struct.pack('!H', ident)) or \\
                    (p[6] == 44 and p[40] == 58 and p[48] == 129 and p[52:54] == struct.pack('!H', ident))

            def frames_from_gateway(seconds, want, v6=False):
                # IPv4 (or with v6 IPv6) packets jslirp sent to the guest from the gateway within `seconds` for which want(ip_packet) holds
                ethertype, source, gateway = (b'\\x86\\xdd', slice(22, 38), GW6) if v6 else (b'\\x08\\x00', slice(26, 30), GW)
                found, end = [], time.time() + seconds
                while time.time() < end:
                    r, _, _ = select.select([raw], [], [], max(0, end - time.time()))
                    if not r: break
                    f, addr = raw.recvfrom(70000)
                    if addr[2] == socket.PACKET_OUTGOING or f[12:14] != ethertype or f[source] != gateway: continue
                    if want(f[14:]): found.append(f[14:])
                return found
            """;

    static final String MODES = """
            if mode == 'checksums':
                n = int(sys.argv[4])
                for i in range(n):
                    send_ip(ip(17, udp(41000 + i, 9, b'bad ip header'), bad=True))
                    send_ip(ip(6, tcp(42000 + i, 9, random.getrandbits(32), 0, 0x02, bad=True)))
                    send_ip(ip(17, udp(43000 + i, 9, b'bad udp checksum', bad=True)))
                    send_ip(ip(1, icmp_echo(0x4242, i, b'bad icmp checksum' * 4, bad=True)))
                replies = frames_from_gateway(1.0, lambda p: p[9] in (1, 6))
                print('sent %d answered %d' % (4 * n, len(replies)))
            elif mode == 'checksums6':
                ip6_setup()
                n = int(sys.argv[4])
                # what the gateway would answer: TCP (a RST or SYN-ACK), ICMPv6 echo reply or destination unreachable
                answer = lambda p: p[6] == 6 or (p[6] == 58 and p[40] in (1, 129))
                for i in range(n):
                    t = struct.pack('!HHIIBBHHH', 42000 + i, 9, random.getrandbits(32), 0, 5 << 4, 0x02, 64240, 0, 0)
                    send_ip6(6, t[:16] + struct.pack('!H', l6sum(6, t, True)) + t[18:])
                    u = struct.pack('!HHHH', 43000 + i, 9, 8 + 16, 0) + b'bad udp checksum'
                    send_ip6(17, u[:6] + struct.pack('!H', l6sum(17, u, True)) + u[8:])
                    send_ip6(17, u)  # checksum 0: "none", allowed over IPv4, not over IPv6
                    m = struct.pack('!BBHHH', 128, 0, 0, 0x4242, i) + b'bad icmpv6 checksum' * 4
                    send_ip6(58, m[:2] + struct.pack('!H', l6sum(58, m, True)) + m[4:])
                replies = frames_from_gateway(1.0, answer, v6=True)
                # the control: the same echo request with its checksum right is answered
                m = struct.pack('!BBHHH', 128, 0, 0, 0x4242, n) + b'good icmpv6 checksum'
                send_ip6(58, m[:2] + struct.pack('!H', l6sum(58, m)) + m[4:])
                control = frames_from_gateway(1.0, answer, v6=True)
                print('sent %d answered %d control %d' % (4 * n, len(replies), len(control)))
            elif mode == 'extensions6':
                ip6_setup()
                tport, uport = int(sys.argv[4]), int(sys.argv[5])
                # a SYN behind hop-by-hop (with a router alert) and destination options headers
                t = struct.pack('!HHIIBBHHH', 45000, tport, random.getrandbits(32), 0, 5 << 4, 0x02, 64240, 0, 0)
                send_ip6(0, options6(60, bytes([5, 2, 0, 0])) + options6(6) + t[:16] + struct.pack('!H', l6sum(6, t)) + t[18:])
                synack = frames_from_gateway(2.0, lambda p: p[6] == 6 and struct.unpack('!HH', p[40:44]) == (tport, 45000)
                                             and p[53] & 0x12 == 0x12, v6=True)
                # a datagram behind them, with an unknown option whose type says to skip it
                u = struct.pack('!HHHH', 46000, uport, 8 + 14, 0) + b'behind options'
                send_ip6(0, options6(60) + options6(17, bytes([0x1e, 2, 0, 0])) + u[:6] + struct.pack('!H', l6sum(17, u)) + u[8:])
                echoed = frames_from_gateway(2.0, lambda p: p[6] == 17 and struct.unpack('!HH', p[40:44]) == (uport, 46000)
                                             and p[48:] == b'behind options', v6=True)
                # an unknown next header (253, for experiments) behind destination options: a parameter problem points at it
                send_ip6(60, options6(253) + b'\\0' * 8)
                # an option whose type says to tell the sender (10xxxxxx)
                send_ip6(60, options6(17, bytes([0x9e, 2, 0, 0])) + u[:6] + struct.pack('!H', l6sum(17, u)) + u[8:])
                problems = frames_from_gateway(2.0, lambda p: p[6] == 58 and p[40] == 4, v6=True)
                print('synack %d udp %d problems %s' % (len(synack), len(echoed),
                      ' '.join('%d@%d' % (p[41], struct.unpack('!I', p[44:48])[0]) for p in problems)))
            elif mode == 'fragments6':
                ip6_setup()
                n = int(sys.argv[4])
                # never completed: a first piece each, distinct ids
                for i in range(n):
                    send_ip6(44, fragment6(17, i, 0, 1, b'z' * 1448))
                # an echo request of 2008 bytes in overlapping pieces: abandoned (RFC 5722), no answer
                msg = echo6(0x4343, 1, bytes(range(256)) * 7 + b'!' * 200)
                for off, data, more in [(800, msg[800:], 0), (0, msg[:1448], 1)]:
                    send_ip6(44, fragment6(58, 0x7777, off, more, data))
                overlapping = frames_from_gateway(2.0, echo_reply6(0x4343), v6=True)
                # the control: the same size in pieces that do not overlap is answered (in fragments too)
                msg = echo6(0x4444, 1, bytes(range(256)) * 7 + b'!' * 200)
                for off, data, more in [(1448, msg[1448:], 0), (0, msg[:1448], 1)]:
                    send_ip6(44, fragment6(58, 0x7778, off, more, data))
                control = frames_from_gateway(2.0, echo_reply6(0x4444), v6=True)
                print('sent %d overlapping-echo-replies %d control %d' % (n + 4, len(overlapping), len(control)))
            elif mode == 'options':
                loops = [b'\\x02\\x00\\x00\\x00', b'\\x02\\x01\\x00\\x00', b'\\x01\\x01\\x02\\x08\\x05\\xb4\\x00\\x00',
                         b'\\x08\\x0c' + b'\\0' * 6, b'\\x01\\x01\\x01\\x04', b'\\xfe\\x00' * 4]
                for i, o in enumerate(loops):
                    send_ip(ip(6, tcp(44000 + i, 9, random.getrandbits(32), 0, 0x02, options=o)))
                replies = frames_from_gateway(1.0, lambda p: p[9] == 6)
                print('sent %d answered %d' % (len(loops), len(replies)))
            elif mode == 'fragments':
                n = int(sys.argv[4])
                # never completed: a first piece each, distinct ids
                for i in range(n):
                    send_ip(ip(17, udp(45000, 9, b'z' * 1472), ident=i & 0xffff, frag=0x2000))
                # an echo request of 2008 bytes in overlapping pieces, last first; sent again (a new id)
                # while no reply came: on a loaded machine the tap's queues, still full of the flood,
                # may drop the pieces before jslirp sees them
                msg = icmp_echo(0x4343, 1, bytes(range(256)) * 7 + b'!' * 208)
                pieces = [(1200, msg[1200:]), (0, msg[:1480]), (800, msg[800:1600])]
                for attempt in range(3):
                    for off, data in pieces:
                        more = 0x2000 if off + len(data) < len(msg) else 0
                        send_ip(ip(1, data, ident=0x7777 + attempt, frag=more | off // 8))
                    replies = frames_from_gateway(2.0, lambda p: p[9] == 1 and p[20] == 0 and p[24:26] == b'\\x43\\x43')
                    if replies: break
                print('sent %d overlapping-echo-replies %d' % (n + 3, len(replies)))
            elif mode == 'inject':
                port = int(sys.argv[4])
                s = socket.create_connection(('10.0.2.2', port), timeout=5)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.sendall(b'ping'); assert s.recv(100) == b'ping'
                time.sleep(0.3)
                sport = s.getsockname()[1]
                # the guest's next sequence number and jslirp's, from a fresh exchange seen on the wire
                frames_from_gateway(0.05, lambda p: False)  # what the socket has queued so far
                s.sendall(b'x')
                seen = []
                end = time.time() + 2
                while time.time() < end and not seen:
                    f, addr = raw.recvfrom(70000)
                    if addr[2] == socket.PACKET_OUTGOING and f[23] == 6 and struct.unpack('!H', f[34:36])[0] == sport:
                        seq, ack = struct.unpack('!II', f[38:46])
                        seen.append((seq + len(f) - 14 - 20 - (f[46] >> 4) * 4, ack))
                assert s.recv(100) == b'x'
                nxt, peer = seen[0]
                time.sleep(0.3)
                def challenge(p): return p[9] == 6 and struct.unpack('!HH', p[20:24]) == (port, sport) and p[33] & 0x10 and not p[33] & 0x07
                def probe(name, flags, seq):
                    frames_from_gateway(0.05, lambda p: False)
                    send_ip(ip(6, tcp(sport, port, seq & 0xffffffff, peer, flags)))
                    acks = frames_from_gateway(0.5, challenge)
                    ok = [a for a in acks if struct.unpack('!I', a[28:32])[0] == nxt]
                    print('%s acks=%d' % (name, len(ok)))
                probe('rst-in-window', 0x04, nxt + 1000)
                probe('rst-out-of-window', 0x04, nxt + (1 << 30))
                probe('syn-established', 0x02, random.getrandbits(32))
                probe('rst-ack-in-window', 0x14, nxt + 1)
                s.sendall(b'still there?')
                print('echo after injection:', s.recv(100).decode())
                s.close()
            """;

    @BeforeEach
    void assumptions() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's counters are checked");
        ItEnv.assumeTools(ItEnv.python(), "curl", "ping");
    }

    private record Run(Cmd.Result injector, Map<String, Long> counters) {}

    /** Attaches jslirp, runs the injector in mode, checks jslirp is alive and still serves a curl, stops it. */
    private static Run inject(String mode, String... args) throws Exception {
        return inject(false, mode, args);
    }

    /** As {@link #inject(String, String...)}; with ipv6, the namespace and the stack have IPv6 too, and the guest its SLAAC address. */
    private static Run inject(boolean ipv6, String mode, String... args) throws Exception {
        try (HttpBlobServer http = new HttpBlobServer();
             Namespace ns = ipv6 ? Namespace.createWithIpv6() : Namespace.create();
             Stack.Running stack = Stack.attach(ns, ipv6 ? Stack.Options.configured().enableIpv6() : Stack.Options.configured())) {
            Duration t = Duration.ofSeconds(30);
            if (ipv6) Ipv6IT.awaitSlaac(ns, stack);
            assertThat(ns.exec(t, "ping", "-c", "1", "-W", "2", Namespace.GATEWAY).exit()).isZero();
            String gwMac = FloodIT.match(ns.exec(t, "ip", "neigh", "show", Namespace.GATEWAY, "dev", "tap0").out(), "lladdr ([0-9a-f:]{17})");
            String myMac = FloodIT.match(ns.exec(t, "ip", "-o", "link", "show", "dev", "tap0").out(), "link/ether ([0-9a-f:]{17})");
            List<String> cmd = new ArrayList<>(List.of(ItEnv.python(), "-c", COMMON + MODES, mode, gwMac, myMac));
            cmd.addAll(List.of(args));
            Cmd.Result r = Cmd.run(Duration.ofSeconds(60), ns.inside(cmd));
            System.out.println("[hostile " + mode + "] " + r.out().strip().replace('\n', ' '));
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(stack.alive()).as(stack.describe()).isTrue();
            Cmd.Result curl = ns.exec(t, "curl", "-sS", "--max-time", "10", http.guestUrl("/small"));
            assertThat(curl.out()).as("%s\n%s", curl, stack.describe()).isEqualTo(HttpBlobServer.SMALL_BODY);
            Map<String, Long> c = stack.stop().counters();
            System.out.println("[hostile " + mode + "] counters " + c);
            return new Run(r, c);
        }
    }

    @Test
    @Timeout(90)
    void wrongChecksumsAreDroppedAndCounted() throws Exception {
        Run run = inject("checksums", "50");
        assertThat(run.injector().out()).contains("sent 200 answered 0");
        assertThat(run.counters().get("bad_checksum")).as("IPv4 header, TCP, UDP and ICMP, 50 each").isEqualTo(200);
        assertThat(run.counters().get("udp_flows")).as("no datagram reached the host").isZero();
        assertThat(run.counters().get("tcp_connections")).as("only the curl afterwards").isEqualTo(1);
    }

    @Test
    @Timeout(90)
    void wrongIpv6ChecksumsAreDroppedAndCounted() throws Exception {
        Run run = inject(true, "checksums6", "50");
        assertThat(run.injector().out()).contains("sent 200 answered 0 control 1");
        assertThat(run.counters().get("bad_checksum")).as("TCP, UDP, UDP without a checksum and ICMPv6, 50 each").isEqualTo(200);
        assertThat(run.counters().get("malformed")).isZero();
        assertThat(run.counters().get("udp_flows")).as("no datagram reached the host").isZero();
        assertThat(run.counters().get("tcp_connections")).as("only the curl afterwards").isEqualTo(1);
    }

    /** RFC 8200 section 4: what is behind extension headers is taken; what the stack does not know is answered with a Parameter Problem. */
    @Test
    @Timeout(90)
    void ipv6ExtensionHeadersAreWalkedAndWhatIsUnknownAnswered() throws Exception {
        try (ServerSocket tcp = new ServerSocket(0, 10, Ipv6IT.LOOPBACK6);
             java.net.DatagramSocket udp = new java.net.DatagramSocket(new java.net.InetSocketAddress(Ipv6IT.LOOPBACK6, 0))) {
            Thread echo = Thread.ofPlatform().daemon().start(() -> {
                byte[] b = new byte[2048];
                try {
                    while (true) {
                        java.net.DatagramPacket p = new java.net.DatagramPacket(b, b.length);
                        udp.receive(p);
                        udp.send(p);
                    }
                } catch (Exception closed) {
                    // done
                }
            });
            Run run = inject(true, "extensions6", Integer.toString(tcp.getLocalPort()), Integer.toString(udp.getLocalPort()));
            // the unknown next header, named by the destination options header at offset 40; the option, at 42
            String out = run.injector().out();
            assertThat(out).containsPattern("synack [1-9]").contains("udp 1 problems 1@40 2@42");
            assertThat(run.counters().get("unsupported")).as("the unknown header and option").isGreaterThanOrEqualTo(2);
            assertThat(run.counters().get("malformed")).isZero();
            udp.close();
            echo.join(2000);
        }
    }

    @Test
    @Timeout(90)
    void endlessAndOverlappingIpv6FragmentsStayBounded() throws Exception {
        Run run = inject(true, "fragments6", "20000");
        assertThat(run.injector().out()).contains("sent 20004 overlapping-echo-replies 0 control 1");
        // As IPv4's: of the fragments that reached jslirp, every never-completed datagram but the
        // last 16 gave way to a newer one; the overlapping echo was abandoned. Besides the fragments,
        // fewer than 96 frames cross (Neighbor and Router Discovery, MLD, the echoes, the curl afterwards).
        // How many reach it depends on how far the injector outruns it (1,700 to 2,600 here): many times the slots.
        long in = run.counters().get("frames_in");
        assertThat(in).as("fragments that reached jslirp").isGreaterThan(500);
        assertThat(run.counters().get("reassembly_dropped")).isGreaterThanOrEqualTo(in - 16 - 96);
    }

    @Test
    @Timeout(90)
    void tcpOptionListsThatNeverEndAreDropped() throws Exception {
        Run run = inject("options");
        assertThat(run.injector().out()).contains("sent 6 answered 0");
        assertThat(run.counters().get("malformed")).isEqualTo(6);
        assertThat(run.counters().get("tcp_connections")).as("only the curl afterwards").isEqualTo(1);
    }

    @Test
    @Timeout(90)
    void endlessAndOverlappingFragmentsStayBounded() throws Exception {
        Run run = inject("fragments", "20000");
        assertThat(run.injector().out()).contains("sent 20003 overlapping-echo-replies 1");
        // The injector outruns jslirp, and the tap's queues (1,000 frames each) drop what does not
        // fit; of the fragments that reached jslirp, every never-completed datagram but the last 16
        // gave way to a newer one. Besides the fragments, fewer than 64 frames cross (ARP, the
        // overlapping echo and its reply, the curl afterwards).
        long in = run.counters().get("frames_in");
        assertThat(in).as("fragments that reached jslirp").isGreaterThan(2000);
        assertThat(run.counters().get("reassembly_dropped")).isGreaterThanOrEqualTo(in - 16 - 64);
    }

    @Test
    @Timeout(90)
    void blindResetsAndSynsGetChallengeAcksAndTheConnectionLives() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread echo = Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                    byte[] b = new byte[100];
                    for (int n; (n = in.read(b)) > 0; ) out.write(b, 0, n);
                } catch (Exception e) {
                    // the test reports what the guest saw
                }
            });
            Run run = inject("inject", Integer.toString(server.getLocalPort()));
            String out = run.injector().out();
            assertThat(out).contains("rst-in-window acks=1", "rst-out-of-window acks=0", "syn-established acks=1",
                    "rst-ack-in-window acks=1", "echo after injection: still there?");
            assertThat(run.counters().get("tcp_connections")).as("the injected SYN opened nothing").isEqualTo(2);
            echo.join(5000);
        }
    }
}
