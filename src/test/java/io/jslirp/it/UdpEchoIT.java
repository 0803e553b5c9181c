package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Contract item 4: UDP datagrams to 10.0.2.2:PORT reach an echo server on host 127.0.0.1 and the
 * echo comes back from 10.0.2.2:PORT. Sizes: tiny, one full MTU-1500 datagram, one that the guest
 * has to fragment (reassembly in the stack, fragmentation on the way back).
 */
class UdpEchoIT {
    /** PORT SIZE [GATEWAY]: one datagram of SIZE bytes to GATEWAY (default 10.0.2.2, or fd00::2), retried until echoed. */
    static final String CLIENT = """
            import socket, sys
            port, size = int(sys.argv[1]), int(sys.argv[2])
            gateway = sys.argv[3] if len(sys.argv) > 3 else '10.0.2.2'
            msg = bytes((i * 7 + size) % 251 for i in range(size))
            s = socket.socket(socket.AF_INET6 if ':' in gateway else socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(1.0)
            for attempt in range(5):
                s.sendto(msg, (gateway, port))
                try:
                    data, addr = s.recvfrom(65535)
                except socket.timeout:
                    continue
                print('reply', len(data), data == msg, addr[0], addr[1], attempt)
                sys.exit(0 if data == msg else 3)
            print('no reply')
            sys.exit(1)
            """;

    @Test
    @Timeout(90)
    void datagramsRoundTrip() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python());
        try (UdpEchoServer echo = new UdpEchoServer(InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            int port = echo.port();
            for (int size : new int[] {1, 512, 1472, 4000}) {
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", CLIENT,
                        Integer.toString(port), Integer.toString(size));
                assertThat(r.exit()).as("size %d\n%s\n%s", size, r, stack.describe()).isZero();
                assertThat(r.out()).as("size %d", size).startsWith("reply " + size + " True 10.0.2.2 " + port + " ");
            }
            assertThat(echo.received.get()).isGreaterThanOrEqualTo(4);
            echo.close();
        }
    }

    /** PORT N: asks 10.0.2.2:PORT for N datagrams, checks each (index, size, bytes) and their order, and counts the tap's frames. */
    static final String BURST_CLIENT = """
            import socket, struct, sys
            port, n = int(sys.argv[1]), int(sys.argv[2])
            def rx():  # frames tap0 took from jslirp (/proc/net/dev is the namespace's own)
                for line in open('/proc/net/dev'):
                    name, _, counters = line.partition(':')
                    if name.strip() == 'tap0':
                        return int(counters.split()[1])
                raise SystemExit('no tap0')
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: hold the whole burst
            s.connect(('10.0.2.2', port))
            before = rx()
            s.send(b'go')
            s.settimeout(3.0)
            got = bad = order = 0
            last = -1
            try:
                while got < n:
                    d = s.recv(65535)
                    i = struct.unpack('!I', d[:4])[0]
                    size = 700 if i % 50 == 49 else 1200
                    if len(d) != size or d[4:] != bytes((i * 7 + j) % 251 for j in range(size - 4)):
                        bad += 1
                    if i <= last:
                        order += 1
                    last = i
                    got += 1
            except socket.timeout:
                pass
            print('got', got, 'bad', bad, 'order', order, 'frames', rx() - before)
            """;

    /**
     * A burst of datagrams from the host: each reaches the guest whole and in order, and over the
     * tap (vnet headers) runs of one size come several to a frame, which the guest's kernel cuts
     * (USO): the tap counts fewer frames than datagrams.
     */
    @Test
    @Timeout(90)
    void aBurstOfDatagramsArrivesWholeInOrderAndInFewerFrames() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python());
        int n = 2000;
        try (DatagramSocket host = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                try {
                    DatagramPacket go = new DatagramPacket(new byte[16], 16);
                    host.receive(go);
                    for (int i = 0; i < n; i++) {
                        int size = i % 50 == 49 ? 700 : 1200;
                        byte[] d = new byte[size];
                        d[0] = (byte) (i >>> 24);
                        d[1] = (byte) (i >>> 16);
                        d[2] = (byte) (i >>> 8);
                        d[3] = (byte) i;
                        for (int j = 0; j < size - 4; j++) d[4 + j] = (byte) ((i * 7 + j) % 251);
                        host.send(new DatagramPacket(d, size, go.getSocketAddress()));
                        if (i % 16 == 15) Thread.sleep(2); // bursts the host socket's buffer holds
                    }
                } catch (Exception e) {
                    if (!host.isClosed()) e.printStackTrace();
                }
            });
            Cmd.Result r = ns.exec(Duration.ofSeconds(60), ItEnv.python(), "-c", BURST_CLIENT, Integer.toString(host.getLocalPort()),
                    Integer.toString(n));
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            String[] f = r.out().trim().split(" ");
            int got = Integer.parseInt(f[1]), bad = Integer.parseInt(f[3]), order = Integer.parseInt(f[5]), frames = Integer.parseInt(f[7]);
            System.out.println("UdpEchoIT burst: " + r.out().trim());
            assertThat(bad).as(r.out()).isZero();
            assertThat(order).as(r.out()).isZero();
            // (under a loaded CI machine's stalls the sockets' buffers overflow now and then: a tenth was lost once)
            assertThat(got).as("UDP may lose under load, but not a quarter of a paced burst: %s", r.out()).isGreaterThanOrEqualTo(n * 3 / 4);
            assertThat(frames).as("several datagrams to a frame: %s", r.out()).isLessThan(got);
            host.close();
            t.join(2000);
        }
    }

    /**
     * UDP to a closed host port: the host's ICMP error comes back to the guest as port
     * unreachable, so its connected socket sees "connection refused".
     */
    @Test
    @Timeout(60)
    void datagramToAClosedPortIsRefused() throws Exception {
        ItEnv.assumeStack();
        int port;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = s.getLocalPort();
        }
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", GuestProbes.UDP_CLOSED_PORT_CLIENT, Integer.toString(port), "10.0.2.2");
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out()).startsWith("refused");
        }
    }
}
