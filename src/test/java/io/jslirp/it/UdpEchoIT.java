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
        AtomicInteger received = new AtomicInteger();
        try (DatagramSocket echo = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                byte[] buf = new byte[65535];
                while (!echo.isClosed()) {
                    try {
                        DatagramPacket p = new DatagramPacket(buf, buf.length);
                        echo.receive(p);
                        received.incrementAndGet();
                        echo.send(new DatagramPacket(p.getData(), p.getOffset(), p.getLength(), p.getSocketAddress()));
                    } catch (SocketException closed) {
                        return;
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                }
            });
            int port = echo.getLocalPort();
            for (int size : new int[] {1, 512, 1472, 4000}) {
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", CLIENT,
                        Integer.toString(port), Integer.toString(size));
                assertThat(r.exit()).as("size %d\n%s\n%s", size, r, stack.describe()).isZero();
                assertThat(r.out()).as("size %d", size).startsWith("reply " + size + " True 10.0.2.2 " + port + " ");
            }
            assertThat(received.get()).isGreaterThanOrEqualTo(4);
            echo.close();
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
        String client = """
                import socket, sys
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.connect(('10.0.2.2', int(sys.argv[1])))
                s.settimeout(0.5)
                for attempt in range(6):
                    try:
                        s.send(b'anyone?')
                        s.recv(100)
                        print('answered')
                        sys.exit(2)
                    except ConnectionRefusedError:
                        print('refused', attempt)
                        sys.exit(0)
                    except socket.timeout:
                        continue
                print('no answer')
                sys.exit(1)
                """;
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", client, Integer.toString(port));
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out()).startsWith("refused");
        }
    }
}
