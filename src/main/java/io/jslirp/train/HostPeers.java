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
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The training's host: servers on the loopback of the training's own network namespace (never the
 * machine's), which the guest reaches through the stack at the gateway address:
 * <ul>
 * <li>an echo server (TCP, one selector thread: round trips, and a thousand connections at once);
 * <li>a source (TCP: the client names a byte count in 8 bytes, gets that many, then the server's FIN);
 * <li>a sink (TCP: reads to the client's FIN, answers with the count in 8 bytes);
 * <li>a UDP echo (a datagram whose first byte is {@link #ECHO} comes back; others are dropped);
 * <li>a DNS server on port 53 (the training is root in its own namespaces) answering every
 *     query with one A record in TEST-NET-1, which nothing ever contacts.
 * </ul>
 * The TCP servers on IPv4 and IPv6 loopback, at one port each; all of its threads are daemons, and
 * {@link #close} ends them.
 */
public final class HostPeers implements AutoCloseable {
    /** The first byte of a UDP datagram that the UDP echo returns. */
    public static final byte ECHO = 'e';
    /** The address every DNS answer gives (192.0.2.1, TEST-NET-1: documentation only). */
    static final byte[] ANSWER = {(byte) 192, 0, 2, 1};

    private final List<AutoCloseable> open = new ArrayList<>();
    private final int echo, source, sink, udp;

    private HostPeers() throws IOException {
        echo = echoServer();
        source = streamServer(true);
        sink = streamServer(false);
        udp = datagramServer(0, false);
        datagramServer(53, true);
    }

    /**
     * Run as a process of its own in the training's network namespace (a training JVM records the
     * classes it loads: the traffic's are not jslirp's): prints the ports of the echo, source, sink
     * and UDP echo on one line, serves until its standard input ends, then exits.
     */
    public static void main(String[] args) throws IOException {
        try (HostPeers p = new HostPeers()) {
            System.out.println(p.echo + " " + p.source + " " + p.sink + " " + p.udp);
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the training ends
            }
        }
        System.exit(0);
    }

    private int echoServer() throws IOException {
        Selector selector = Selector.open();
        open.add(selector);
        ServerSocketChannel v4 = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        int port = v4.socket().getLocalPort();
        open.add(v4);
        v4.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
        try {
            ServerSocketChannel v6 = ServerSocketChannel.open();
            open.add(v6);
            v6.bind(new InetSocketAddress(InetAddress.getByName("::1"), port), 1024);
            v6.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | IllegalArgumentException e) {
            // no IPv6 loopback (an error, or a kernel without IPv6: UnsupportedAddressTypeException): IPv4 alone
        }
        daemon("train-echo", () -> echoLoop(selector));
        return port;
    }

    private static void echoLoop(Selector selector) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(64 << 10);
        try {
            while (selector.isOpen()) {
                selector.select();
                for (SelectionKey key : selector.selectedKeys()) {
                    if (key.isAcceptable()) {
                        SocketChannel c = ((ServerSocketChannel) key.channel()).accept();
                        if (c == null) continue;
                        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        c.configureBlocking(false).register(selector, SelectionKey.OP_READ);
                    } else if (key.isReadable()) {
                        echoSome((SocketChannel) key.channel(), buffer);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException e) {
            // closed
        }
    }

    /** Echoes what is there (a client writes no more than it reads back, so the write completes). */
    private static void echoSome(SocketChannel c, ByteBuffer buffer) throws IOException {
        buffer.clear();
        int n;
        try {
            n = c.read(buffer);
        } catch (IOException e) {
            n = -1;
        }
        if (n < 0) {
            c.close();
            return;
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
            if (c.write(buffer) == 0) Thread.onSpinWait();
        }
    }

    /** A source (send) or a sink (!send), a thread per connection. */
    private int streamServer(boolean send) throws IOException {
        ServerSocket v4 = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        open.add(v4);
        int port = v4.getLocalPort();
        daemon("train-" + (send ? "source" : "sink"), () -> acceptLoop(v4, send));
        try {
            ServerSocket v6 = new ServerSocket(port, 16, InetAddress.getByName("::1"));
            open.add(v6);
            daemon("train-" + (send ? "source" : "sink") + "6", () -> acceptLoop(v6, send));
        } catch (IOException | IllegalArgumentException e) {
            // no IPv6 loopback
        }
        return port;
    }

    private static void acceptLoop(ServerSocket server, boolean send) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                daemon("train-stream", () -> stream(s, send));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void stream(Socket s, boolean send) {
        byte[] block = new byte[256 << 10];
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            if (send) {
                long left = ByteBuffer.wrap(in.readNBytes(8)).getLong();
                while (left > 0) {
                    int n = (int) Math.min(block.length, left);
                    out.write(block, 0, n);
                    left -= n;
                }
            } else {
                long total = 0;
                for (int n; (n = in.read(block)) > 0; ) total += n;
                out.write(ByteBuffer.allocate(8).putLong(total).array());
            }
        } catch (IOException | RuntimeException e) {
            // the client went
        }
    }

    /** The UDP echo (port 0: any) or the DNS server, on IPv4 loopback. */
    private int datagramServer(int port, boolean dns) throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        open.add(s);
        daemon(dns ? "train-dns" : "train-udp", () -> datagrams(s, dns));
        return s.getLocalPort();
    }

    private static void datagrams(DatagramSocket s, boolean dns) {
        byte[] in = new byte[2048];
        DatagramPacket p = new DatagramPacket(in, in.length);
        while (!s.isClosed()) {
            try {
                p.setData(in);
                s.receive(p);
                if (dns) {
                    byte[] answer = Dns.answer(in, p.getLength(), ANSWER);
                    if (answer == null) continue;
                    p.setData(answer);
                } else if (p.getLength() == 0 || in[0] != ECHO) {
                    continue;
                }
                s.send(p);
            } catch (IOException e) {
                return;
            }
        }
    }

    static void daemon(String name, Runnable r) {
        Thread.ofPlatform().daemon().name(name).start(r);
    }

    @Override
    public void close() {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}
