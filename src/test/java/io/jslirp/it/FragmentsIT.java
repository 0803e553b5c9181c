package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Datagrams larger than the MTU (1500) both ways, over IPv4 and IPv6: the guest's fragments are
 * reassembled by jslirp, and what jslirp sends back larger than the MTU reaches the guest in
 * fragments its kernel reassembles.
 */
class FragmentsIT {
    @Test
    @Timeout(60)
    void pingWithFiveThousandBytesIsAnsweredInFragments() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ping");
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            for (int size : new int[] {5000, 30000}) {
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), "ping", "-c", "3", "-i", "0.2", "-W", "5", "-s", Integer.toString(size), Namespace.GATEWAY);
                assertThat(r.exit()).as("ping -s %d\n%s\n%s", size, r, stack.describe()).isZero();
                assertThat(r.out()).as("ping -s %d", size).contains((size + 8) + " bytes from " + Namespace.GATEWAY, "3 received");
            }
            // The replies did come in fragments: the guest's kernel counted reassemblies.
            Cmd.Result snmp = ns.exec(Duration.ofSeconds(10), "cat", "/proc/net/snmp");
            assertThat(reassemblyOks(snmp.out())).as("%s", snmp.out()).isGreaterThanOrEqualTo(6);
        }
    }

    @Test
    @Timeout(90)
    void ipv6PingWithFiveThousandBytesIsReassembledAndAnsweredInFragments() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ping");
        try (Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6())) {
            Ipv6IT.awaitSlaac(ns, stack);
            for (int size : new int[] {5000, 30000}) {
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), "ping", "-6", "-c", "3", "-i", "0.2", "-W", "5", "-s", Integer.toString(size),
                        Namespace.GATEWAY6);
                assertThat(r.exit()).as("ping -6 -s %d\n%s\n%s", size, r, stack.describe()).isZero();
                assertThat(r.out()).as("ping -6 -s %d", size).contains((size + 8) + " bytes from " + Namespace.GATEWAY6, "3 received");
            }
            // The guest sent its requests in fragments, which jslirp put together; the replies came in fragments too.
            Cmd.Result snmp = ns.exec(Duration.ofSeconds(10), "cat", "/proc/net/snmp6");
            assertThat(snmp6(snmp.out(), "Ip6FragCreates")).as("%s", snmp.out()).isGreaterThanOrEqualTo(6);
            assertThat(snmp6(snmp.out(), "Ip6ReasmOKs")).as("%s", snmp.out()).isGreaterThanOrEqualTo(6);
        }
    }

    /** A counter of /proc/net/snmp6 (lines "name value"). */
    static long snmp6(String snmp, String name) {
        return snmp.lines().map(l -> l.trim().split("\\s+")).filter(f -> f.length == 2 && f[0].equals(name))
                .mapToLong(f -> Long.parseLong(f[1])).findFirst().orElseThrow(() -> new AssertionError("no " + name + " in " + snmp));
    }

    /** 5000 bytes to fd00::2 (host ::1) and 5000 back: the guest's fragments put together, the answer cut into fragments. */
    @Test
    @Timeout(90)
    void ipv6DatagramsLargerThanTheMtuCrossBothWays() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python());
        try (UdpEchoServer echo = new UdpEchoServer(Ipv6IT.LOOPBACK6);
             Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6())) {
            Ipv6IT.awaitSlaac(ns, stack);
            for (int size : new int[] {5000, 20000}) {
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", UdpEchoIT.CLIENT,
                        Integer.toString(echo.port()), Integer.toString(size), Namespace.GATEWAY6);
                assertThat(r.exit()).as("size %d\n%s\n%s", size, r, stack.describe()).isZero();
                assertThat(r.out()).as("size %d", size).startsWith("reply " + size + " True fd00::2 ");
            }
            assertThat(echo.largest.get()).as("the host got the 20000 bytes in one datagram").isEqualTo(20000);
            Cmd.Result snmp = ns.exec(Duration.ofSeconds(10), "cat", "/proc/net/snmp6");
            assertThat(snmp6(snmp.out(), "Ip6ReasmOKs")).as("the replies came in fragments\n%s", snmp.out()).isGreaterThanOrEqualTo(2);
        }
    }

    /** ReasmOKs of the Ip: lines of /proc/net/snmp. */
    private static long reassemblyOks(String snmp) {
        String[] lines = snmp.lines().filter(l -> l.startsWith("Ip:")).toArray(String[]::new);
        String[] names = lines[0].split("\\s+");
        String[] values = lines[1].split("\\s+");
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals("ReasmOKs")) return Long.parseLong(values[i]);
        }
        throw new AssertionError("no ReasmOKs in " + snmp);
    }

    /** The guest sends a small datagram; the host answers with 5000 bytes, which the guest gets whole. */
    @Test
    @Timeout(60)
    void aHostDatagramLargerThanTheMtuArrivesIntact() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python());
        int size = 5000;
        byte[] big = Blob.bytes(0xF4A6, size);
        AtomicInteger asked = new AtomicInteger();
        String client = """
                import socket, sys, hashlib
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.settimeout(1.0)
                for attempt in range(5):
                    s.sendto(b'send me the big one', ('10.0.2.2', int(sys.argv[1])))
                    try:
                        data, addr = s.recvfrom(65535)
                    except socket.timeout:
                        continue
                    print(len(data), hashlib.sha256(data).hexdigest())
                    sys.exit(0)
                print('no reply')
                sys.exit(1)
                """;
        try (DatagramSocket server = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                byte[] buf = new byte[2048];
                while (!server.isClosed()) {
                    try {
                        DatagramPacket p = new DatagramPacket(buf, buf.length);
                        server.receive(p);
                        asked.incrementAndGet();
                        server.send(new DatagramPacket(big, big.length, p.getSocketAddress()));
                    } catch (SocketException closed) {
                        return;
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                }
            });
            Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", client, Integer.toString(server.getLocalPort()));
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out().strip()).isEqualTo(size + " " + Blob.sha256(big));
            assertThat(asked.get()).isPositive();
            server.close();
            t.join(2000);
        }
    }
}
