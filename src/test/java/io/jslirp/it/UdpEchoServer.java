package io.jslirp.it;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicInteger;

/** A UDP echo server on a host address (loopback), on a daemon thread: each datagram goes back whole to its sender. */
final class UdpEchoServer implements AutoCloseable {
    private final DatagramSocket socket;
    private final Thread thread;
    /** Datagrams received; the largest one's length. */
    final AtomicInteger received = new AtomicInteger(), largest = new AtomicInteger();

    UdpEchoServer(InetAddress address) throws SocketException {
        socket = new DatagramSocket(new InetSocketAddress(address, 0));
        thread = Thread.ofPlatform().daemon().start(this::serve);
    }

    int port() {
        return socket.getLocalPort();
    }

    private void serve() {
        byte[] buf = new byte[65535];
        while (!socket.isClosed()) {
            try {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                socket.receive(p);
                received.incrementAndGet();
                largest.accumulateAndGet(p.getLength(), Math::max);
                socket.send(new DatagramPacket(p.getData(), p.getOffset(), p.getLength(), p.getSocketAddress()));
            } catch (SocketException closed) {
                return;
            } catch (Exception e) {
                e.printStackTrace();
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        thread.join(2000);
    }
}
