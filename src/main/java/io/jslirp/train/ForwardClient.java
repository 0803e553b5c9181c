package io.jslirp.train;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The host's client of the training's forwarded port, a process of its own in the host's network
 * namespace: it connects to the port on the host's loopback until the guest's server is there (the
 * stack accepts at once and resets the connection while nothing listens in the guest), exchanges
 * 1-byte round trips, then asks for a number of bytes and reads them to the guest's FIN.
 */
public final class ForwardClient {
    /** The byte that ends the round trips (a round trip's byte is never it). */
    static final int DONE = 'z';

    private ForwardClient() {}

    /** Arguments: the host port, round trips, bytes to download. Exits 1 when the guest's server never answered. */
    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        int roundTrips = Integer.parseInt(args[1]);
        long bytes = Long.parseLong(args[2]);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                 InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                s.setTcpNoDelay(true);
                s.setSoTimeout(5_000);
                for (int i = 0; i < roundTrips; i++) {
                    out.write('y');
                    if (in.read() != 'y') throw new IOException("no echo");
                }
                out.write(DONE);
                out.write(ByteBuffer.allocate(8).putLong(bytes).array());
                byte[] buffer = new byte[256 << 10];
                while (in.read(buffer) > 0) {
                    // the guest's bytes, to its FIN
                }
                System.exit(0);
            } catch (IOException e) {
                Thread.sleep(100); // the guest's server is not there yet
            }
        }
        System.err.println("jslirp train: the forwarded port's guest server never answered");
        System.exit(1);
    }
}
