package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Contract item 10: truncated and inconsistent frames written into tap0 with an AF_PACKET socket
 * (bypassing the guest kernel's own checks) neither kill nor wedge the stack: a curl through the
 * gateway still works afterwards. For jslirp, the counters line printed on SIGTERM must show
 * {@code malformed>0}. (The liveness part also runs against slirp4netns, validating the injector.)
 */
class MalformedFramesIT {
    /**
     * argv: gateway MAC, tap MAC, optional comma-separated frame names to leave out.
     * Prints one line per frame and "sent N rejected M".
     */
    static final String INJECTOR = """
            import socket, struct, sys
            gw = bytes.fromhex(sys.argv[1].replace(':', ''))
            me = bytes.fromhex(sys.argv[2].replace(':', ''))
            SRC, DST = socket.inet_aton('10.0.2.100'), socket.inet_aton('10.0.2.2')

            def csum(b):
                if len(b) % 2: b += b'\\0'
                s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
                while s >> 16: s = (s & 0xffff) + (s >> 16)
                return (~s) & 0xffff

            def eth(ethertype, payload): return gw + me + struct.pack('!H', ethertype) + payload

            def ip(proto, payload, total=None, ihl=5, ver=4, frag=0x4000, hdr_bytes=20):
                if total is None: total = 20 + len(payload)
                h = struct.pack('!BBHHHBBH4s4s', (ver << 4) | ihl, 0, total, 0x4a53, frag, 64, proto, 0, SRC, DST)
                h = h[:10] + struct.pack('!H', csum(h)) + h[12:]
                return h[:hdr_bytes] + payload

            def udp(length=None, payload=b'x' * 4, sport=40000, dport=9):
                if length is None: length = 8 + len(payload)
                return struct.pack('!HHHH', sport, dport, length, 0) + payload

            def tcp(doff=5, flags=0x02, sport=40001, dport=9):
                return struct.pack('!HHIIBBHHH', sport, dport, 1000, 0, doff << 4, flags, 65535, 0, 0)

            arp = struct.pack('!HHBBH6s4s6s4s', 1, 0x0800, 6, 4, 1, me, SRC, b'\\0' * 6, DST)
            frames = [
                ('runt-5-bytes', gw[:5]),
                ('eth-header-only-ipv4', eth(0x0800, b'')),
                ('ipv4-header-10-bytes', eth(0x0800, ip(17, b'', hdr_bytes=10))),
                ('ipv4-total-length-beyond-frame', eth(0x0800, ip(17, udp(), total=1000))),
                ('ipv4-total-length-below-header', eth(0x0800, ip(17, udp(), total=12))),
                ('ipv4-ihl-3', eth(0x0800, ip(17, udp(), ihl=3))),
                ('ipv4-ihl-15-truncated', eth(0x0800, ip(17, udp(), ihl=15))),
                ('ipv4-version-6-in-ipv4-ethertype', eth(0x0800, ip(17, udp(), ver=6))),
                ('ipv4-fragment-past-64k', eth(0x0800, ip(17, b'y' * 64, frag=0x1fff))),
                ('tcp-header-truncated', eth(0x0800, ip(6, tcp()[:10]))),
                ('tcp-data-offset-3', eth(0x0800, ip(6, tcp(doff=3)))),
                ('tcp-data-offset-15-truncated', eth(0x0800, ip(6, tcp(doff=15)))),
                ('udp-header-truncated', eth(0x0800, ip(17, udp()[:5]))),
                ('udp-length-beyond-packet', eth(0x0800, ip(17, udp(length=200)))),
                ('udp-length-below-8', eth(0x0800, ip(17, udp(length=4)))),
                ('icmp-truncated', eth(0x0800, ip(1, b'\\x08'))),
                ('arp-truncated', eth(0x0806, arp[:10])),
                ('arp-inconsistent-lengths', eth(0x0806, arp[:4] + bytes([16, 4]) + arp[6:])),
                ('ipv6-truncated', eth(0x86dd, b'\\x60\\0\\0')),
                ('vlan-tag-truncated', eth(0x8100, b'\\x00')),
            ]
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
            s.bind(('tap0', 0))
            sent = rejected = 0
            skip = set(sys.argv[3].split(',')) if len(sys.argv) > 3 and sys.argv[3] else set()
            for name, frame in frames:
                if name in skip:
                    print('skipped', name)
                    continue
                try:
                    s.send(frame)
                    sent += 1
                    print('sent', name, len(frame))
                except OSError as e:
                    rejected += 1
                    print('rejected-by-kernel', name, len(frame), e.errno)
            print('sent %d rejected %d' % (sent, rejected))
            """;

    @Test
    @Timeout(120)
    void malformedFramesAreDroppedAndCounted() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python(), "curl", "ping");
        try (HttpBlobServer http = new HttpBlobServer();
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Duration t = Duration.ofSeconds(20);
            Cmd.Result ping = ns.exec(t, "ping", "-c", "1", "-W", "2", Namespace.GATEWAY);
            assertThat(ping.exit()).as("%s\n%s", ping, stack.describe()).isZero();
            String gwMac = match(ns.exec(t, "ip", "neigh", "show", Namespace.GATEWAY, "dev", "tap0").out(), "lladdr ([0-9a-f:]{17})");
            String myMac = match(ns.exec(t, "ip", "-o", "link", "show", "dev", "tap0").out(), "link/ether ([0-9a-f:]{17})");

            // slirp4netns 1.2.0 / libslirp 4.7.0 dies (exit status 135) on an IPv4 fragment whose
            // offset + length pass 65535; leave that one out when validating against it.
            String skip = Stack.Kind.selected() == Stack.Kind.SLIRP4NETNS ? "ipv4-fragment-past-64k" : "";
            Cmd.Result inject = ns.exec(t, ItEnv.python(), "-c", INJECTOR, gwMac, myMac, skip);
            System.out.println("[" + Stack.Kind.selected() + "] injector:\n" + inject.out());
            assertThat(inject.exit()).as("%s", inject).isZero();
            int sent = Integer.parseInt(match(inject.out(), "sent (\\d+) rejected"));
            assertThat(sent).isGreaterThanOrEqualTo(15);
            Namespace.sleep(300);

            assertThat(stack.alive()).as("stack survived the frames: %s", stack.describe()).isTrue();
            Cmd.Result curl = ns.exec(t, "curl", "-sS", "--max-time", "10", http.guestUrl("/small"));
            assertThat(curl.exit()).as("%s\n%s", curl, stack.describe()).isZero();
            assertThat(curl.out()).isEqualTo(HttpBlobServer.SMALL_BODY);
            Cmd.Result ping2 = ns.exec(t, "ping", "-c", "1", "-W", "2", Namespace.GATEWAY);
            assertThat(ping2.exit()).as("%s", ping2).isZero();

            Stack.Exit exit = stack.stop();
            if (Stack.Kind.selected() == Stack.Kind.JSLIRP) {
                Map<String, Long> c = exit.counters();
                assertThat(c).as("counters line in stderr: %s", exit.stderr()).containsKeys("frames_in", "frames_out", "malformed");
                assertThat(c.get("malformed")).as("malformed counter").isPositive();
                assertThat(c.get("frames_in")).isGreaterThanOrEqualTo(sent);
                assertThat(c.get("frames_out")).isPositive();
            }
        }
    }

    private static String match(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("/%s/ in %s", regex, text).isTrue();
        return m.group(1);
    }
}
