package io.jslirp.train;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the training's guest does, from a thread in the guest's network namespace (sockets belong
 * to the namespace of the thread that makes them): the exchanges a container's first minutes are
 * made of, each through the stack to the {@link HostPeers} at the gateway address. Round trips,
 * a download and an upload, many connections at once, UDP round trips and a burst, DNS lookups,
 * a connection through a forwarded port (the host's client is a {@link ForwardClient}), and, where the guest has an IPv6 address, round trips and a
 * download over IPv6. Anything failing ends that part, never the training.
 */
public final class GuestTraffic {
    /** How much of each: round trips, bytes each way, connections at once, UDP round trips, DNS lookups. */
    public record Plan(int roundTrips, long bulkBytes, int connections, int datagrams, int lookups) {}

    /** The addresses the guest reaches the host and the DNS service at; gateway6 null without IPv6. */
    public record Addresses(InetAddress gateway, InetAddress dns, InetAddress gateway6) {}

    private static final int CONNECT_MILLIS = 5_000;
    private final Plan plan;
    private final Addresses to;
    private final Ports peers;
    private final List<String> failed = new ArrayList<>();

    /** The ports of the {@link HostPeers}. */
    public record Ports(int echoPort, int sourcePort, int sinkPort, int udpPort) {}

    public GuestTraffic(Plan plan, Addresses to, Ports peers) {
        this.plan = plan;
        this.to = to;
        this.peers = peers;
    }

    /** Runs every part in turn, the forwarded port's guest side on forwardedPort. Returns the parts that failed. */
    public List<String> run(int forwardedPort) {
        part("round trips", () -> roundTrips(to.gateway(), plan.roundTrips()));
        part("download", () -> download(to.gateway(), plan.bulkBytes()));
        part("upload", () -> upload(to.gateway(), plan.bulkBytes()));
        part("connections", () -> connections(plan.connections()));
        part("udp", this::udp);
        part("dns", this::lookups);
        part("forwarded port", () -> forwarded(forwardedPort));
        if (to.gateway6() != null && reachable(to.gateway6())) {
            part("ipv6 round trips", () -> roundTrips(to.gateway6(), plan.roundTrips() / 4));
            part("ipv6 download", () -> download(to.gateway6(), plan.bulkBytes() / 4));
        }
        return failed;
    }

    private interface Part {
        void run() throws IOException, InterruptedException;
    }

    private void part(String name, Part p) {
        try {
            p.run();
        } catch (IOException | InterruptedException | RuntimeException e) {
            failed.add(name + ": " + e);
        }
    }

    private Socket connect(InetAddress host, int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(host, port), CONNECT_MILLIS);
        s.setTcpNoDelay(true);
        s.setSoTimeout(CONNECT_MILLIS);
        return s;
    }

    /**
     * Whether the IPv6 gateway answers within a few seconds. SLAAC and duplicate address detection
     * take a moment, and a connection tried meanwhile has the link-local source address: tried again
     * after a short timeout, not the kernel's retransmissions of that SYN.
     */
    private boolean reachable(InetAddress host) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < until) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, peers.echoPort()), 300);
                return true;
            } catch (IOException e) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    return false;
                }
            }
        }
        return false;
    }

    private void roundTrips(InetAddress host, int n) throws IOException {
        try (Socket s = connect(host, peers.echoPort()); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            for (int i = 0; i < n; i++) {
                out.write('x');
                if (in.read() != 'x') throw new IOException("echo ended after " + i);
            }
        }
    }

    private void download(InetAddress host, long bytes) throws IOException {
        try (Socket s = connect(host, peers.sourcePort()); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            out.write(ByteBuffer.allocate(8).putLong(bytes).array());
            byte[] buffer = new byte[256 << 10];
            long got = 0;
            for (int n; (n = in.read(buffer)) > 0; ) got += n;
            if (got != bytes) throw new IOException(got + " of " + bytes + " bytes");
        }
    }

    private void upload(InetAddress host, long bytes) throws IOException {
        try (Socket s = connect(host, peers.sinkPort()); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            byte[] block = new byte[256 << 10];
            for (long left = bytes; left > 0; left -= block.length) out.write(block, 0, (int) Math.min(block.length, left));
            s.shutdownOutput();
            long got = ByteBuffer.wrap(in.readNBytes(8)).getLong();
            if (got != bytes) throw new IOException("the host got " + got + " of " + bytes + " bytes");
        }
    }

    /** n connections opened together, held open, 1 KiB echoed on each, then all closed. */
    private void connections(int n) throws IOException {
        List<SocketChannel> open = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            InetSocketAddress echo = new InetSocketAddress(to.gateway(), peers.echoPort());
            for (int i = 0; i < n; i++) {
                SocketChannel c = SocketChannel.open();
                open.add(c);
                c.configureBlocking(false);
                if (!c.connect(echo)) c.register(selector, SelectionKey.OP_CONNECT);
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!selector.keys().isEmpty() && System.nanoTime() < until) {
                selector.select(500);
                for (SelectionKey key : selector.selectedKeys()) {
                    ((SocketChannel) key.channel()).finishConnect();
                    key.cancel();
                }
                selector.selectedKeys().clear();
                selector.selectNow(); // the cancelled keys go
            }
            ByteBuffer block = ByteBuffer.allocate(1024);
            for (SocketChannel c : open) {
                if (!c.isConnected()) throw new IOException("a connection did not open");
                c.configureBlocking(true);
                block.clear();
                c.write(block);
            }
            for (SocketChannel c : open) {
                block.clear();
                while (block.hasRemaining()) {
                    if (c.read(block) < 0) throw new IOException("echo ended");
                }
            }
        } finally {
            for (SocketChannel c : open) c.close();
        }
    }

    /** UDP round trips, then a burst of datagrams the host drops (as a bulk sender's). */
    private void udp() throws IOException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(1_000);
            s.connect(new InetSocketAddress(to.gateway(), peers.udpPort()));
            byte[] out = new byte[64];
            byte[] in = new byte[2048];
            DatagramPacket reply = new DatagramPacket(in, in.length);
            out[0] = HostPeers.ECHO;
            int lost = 0;
            for (int i = 0; i < plan.datagrams() && lost < 10; i++) {
                s.send(new DatagramPacket(out, out.length));
                try {
                    s.receive(reply);
                } catch (SocketTimeoutException e) {
                    lost++;
                }
            }
            byte[] bulk = new byte[1400];
            DatagramPacket p = new DatagramPacket(bulk, bulk.length);
            for (int i = 0; i < plan.datagrams() * 4; i++) s.send(p);
        }
    }

    private void lookups() throws IOException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(2_000);
            s.connect(new InetSocketAddress(to.dns(), 53));
            byte[] in = new byte[512];
            DatagramPacket reply = new DatagramPacket(in, in.length);
            for (int id = 1; id <= plan.lookups(); id++) {
                byte[] q = Dns.query(id, "host" + id + ".train.jslirp.test");
                s.send(new DatagramPacket(q, q.length));
                s.receive(reply);
                if (!Dns.answers(in, reply.getLength(), id)) throw new IOException("no answer to lookup " + id);
            }
        }
    }

    /** The forwarded port's guest side: a server on port for one connection, its 1-byte echoes, then the bytes it asks for in 8. */
    private void forwarded(int port) throws IOException {
        try (ServerSocket server = new ServerSocket(port)) {
            server.setSoTimeout(60_000);
            try (Socket s = server.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                s.setTcpNoDelay(true);
                for (int b; (b = in.read()) != ForwardClient.DONE; ) {
                    if (b < 0) throw new IOException("the forwarded port's client went");
                    out.write(b);
                }
                long left = ByteBuffer.wrap(in.readNBytes(8)).getLong();
                byte[] block = new byte[256 << 10];
                for (; left > 0; left -= block.length) out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
    }

    /**
     * Run as a process of its own in the guest's network namespace (a training JVM records the
     * classes it loads: the traffic's are not jslirp's): PLAN (round trips, bytes, connections,
     * datagrams, lookups), the host peers' ports (echo, source, sink, udp) and the forwarded
     * port's guest port. Exits 1, naming the parts that failed, if any did.
     */
    public static void main(String[] args) throws IOException {
        long[] a = new long[args.length];
        for (int i = 0; i < args.length; i++) a[i] = Long.parseLong(args[i]);
        Plan plan = new Plan((int) a[0], a[1], (int) a[2], (int) a[3], (int) a[4]);
        Ports ports = new Ports((int) a[5], (int) a[6], (int) a[7], (int) a[8]);
        Addresses to = new Addresses(InetAddress.getByName("10.0.2.2"), InetAddress.getByName("10.0.2.3"), InetAddress.getByName("fd00::2"));
        List<String> failed = new GuestTraffic(plan, to, ports).run((int) a[9]);
        for (String f : failed) System.err.println("jslirp train: " + f);
        System.exit(failed.isEmpty() ? 0 : 1);
    }
}
