package io.jslirp.examples;

import io.jslirp.embed.MemoryLink;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A guest's side of one TCP connection written with nothing but the JDK: Ethernet, IPv4 and TCP
 * frames built and parsed by hand, carried over a {@link MemoryLink}. Enough TCP for a few
 * request-echo rounds of small messages in order, without loss: no retransmission, no options.
 */
public final class TinyGuest {
    private static final byte[] GUEST_MAC = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
    private static final int ETHERNET = 14, IPV4 = 20, TCP = 20;
    private static final int FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10;

    private final BlockingQueue<byte[]> toGuest = new LinkedBlockingQueue<>();
    private final MemoryLink link = new MemoryLink(frame -> {
        byte[] copy = new byte[frame.remaining()];
        frame.get(copy);
        toGuest.add(copy);
    });
    private final byte[] address, gateway, gatewayMac;
    private final Duration timeout;
    private int localPort, remotePort, sndNxt, rcvNxt;
    private boolean peerFinished;

    /** A guest at address on the network whose gateway is gateway (e.g. "10.0.2.100", "10.0.2.2"). */
    public TinyGuest(String address, String gateway, Duration timeout) throws java.io.IOException {
        this.address = InetAddress.getByName(address).getAddress();
        this.gateway = InetAddress.getByName(gateway).getAddress();
        // jslirp's virtual hosts answer with MAC 52:55 followed by their IPv4 address (no ARP needed).
        this.gatewayMac = new byte[] {0x52, 0x55, this.gateway[0], this.gateway[1], this.gateway[2], this.gateway[3]};
        this.timeout = timeout;
    }

    /** The link to build the network with. */
    public MemoryLink link() {
        return link;
    }

    /** Opens a connection from localPort to the gateway's port (the host's 127.0.0.1:port). */
    public void connect(int localPort, int port) throws InterruptedException {
        this.localPort = localPort;
        this.remotePort = port;
        sndNxt = 0x1000_0000;
        send(SYN, new byte[0]);
        sndNxt++;
        Segment synAck = next();
        if (synAck.flags != (SYN | ACK) || synAck.ack != sndNxt) throw new IllegalStateException("no SYN-ACK but " + synAck);
        rcvNxt = synAck.seq + 1;
        send(ACK, new byte[0]);
    }

    /** Sends data (at most one segment: keep it under the MSS). */
    public void write(byte[] data) {
        send(PSH | ACK, data);
        sndNxt += data.length;
    }

    /** Reads exactly n bytes, acknowledging each segment. */
    public byte[] read(int n) throws InterruptedException {
        ByteBuffer got = ByteBuffer.allocate(n);
        while (got.hasRemaining()) {
            Segment s = next();
            if ((s.flags & RST) != 0) throw new IllegalStateException("reset by the network");
            if (s.seq != rcvNxt || s.payload.length == 0) continue; // a pure ACK of ours, or not the next bytes
            got.put(s.payload, 0, Math.min(s.payload.length, got.remaining()));
            rcvNxt += s.payload.length;
            if ((s.flags & FIN) != 0) {
                rcvNxt++;
                peerFinished = true;
            }
            send(ACK, new byte[0]);
        }
        return got.array();
    }

    /** Waits for the other end's FIN (the host closed its socket) and acknowledges it. */
    public void awaitClose() throws InterruptedException {
        while (!peerFinished) {
            Segment s = next();
            if ((s.flags & FIN) != 0 && s.seq + s.payload.length == rcvNxt) {
                rcvNxt += 1;
                peerFinished = true;
                send(ACK, new byte[0]);
            }
        }
    }

    /** Sends our FIN and waits for its acknowledgement. */
    public void close() throws InterruptedException {
        send(FIN | ACK, new byte[0]);
        sndNxt++;
        while (true) {
            Segment s = next();
            if ((s.flags & ACK) != 0 && s.ack == sndNxt) return;
        }
    }

    private record Segment(int flags, int seq, int ack, byte[] payload) {
        @Override
        public String toString() {
            return "flags 0x" + Integer.toHexString(flags) + " seq " + Integer.toUnsignedString(seq) + " ack "
                    + Integer.toUnsignedString(ack) + " " + payload.length + " bytes";
        }
    }

    /** The next TCP segment of our connection toward the guest. */
    private Segment next() throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            byte[] f = toGuest.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (f == null) throw new IllegalStateException("nothing from the network in " + timeout);
            ByteBuffer b = ByteBuffer.wrap(f);
            if (f.length < ETHERNET + IPV4 + TCP || b.getShort(12) != 0x0800 || b.get(ETHERNET + 9) != 6) continue;
            int ipHeader = (b.get(ETHERNET) & 0x0f) * 4;
            int ipLength = b.getShort(ETHERNET + 2) & 0xffff;
            int t = ETHERNET + ipHeader;
            if ((b.getShort(t) & 0xffff) != remotePort || (b.getShort(t + 2) & 0xffff) != localPort) continue;
            int dataAt = t + ((b.get(t + 12) >> 4) & 0x0f) * 4;
            return new Segment(b.get(t + 13) & 0x3f, b.getInt(t + 4), b.getInt(t + 8),
                    Arrays.copyOfRange(f, dataAt, ETHERNET + ipLength));
        }
    }

    private void send(int flags, byte[] payload) {
        int length = ETHERNET + IPV4 + TCP + payload.length;
        ByteBuffer f = ByteBuffer.allocate(length);
        f.put(gatewayMac).put(GUEST_MAC).putShort((short) 0x0800);
        f.put((byte) 0x45).put((byte) 0).putShort((short) (IPV4 + TCP + payload.length)).putShort((short) 0)
                .putShort((short) 0x4000).put((byte) 64).put((byte) 6).putShort((short) 0).put(address).put(gateway);
        f.putShort(ETHERNET + 10, checksum(f.array(), ETHERNET, IPV4, 0));
        f.putShort((short) localPort).putShort((short) remotePort).putInt(sndNxt).putInt((flags & ACK) != 0 ? rcvNxt : 0)
                .put((byte) (5 << 4)).put((byte) flags).putShort((short) 65535).putShort((short) 0).putShort((short) 0).put(payload);
        // The TCP checksum covers the pseudo-header: addresses, protocol and TCP length.
        int pseudo = sum(address, 0, 4) + sum(gateway, 0, 4) + 6 + TCP + payload.length;
        f.putShort(ETHERNET + IPV4 + 16, checksum(f.array(), ETHERNET + IPV4, TCP + payload.length, pseudo));
        if (!link.fromGuest(f.flip())) throw new IllegalStateException("the link dropped a frame");
    }

    private static int sum(byte[] b, int off, int len) {
        int s = 0;
        for (int i = 0; i < len; i += 2) s += ((b[off + i] & 0xff) << 8) | (i + 1 < len ? b[off + i + 1] & 0xff : 0);
        return s;
    }

    private static short checksum(byte[] b, int off, int len, int initial) {
        long s = (initial & 0xffffffffL) + sum(b, off, len);
        while ((s >> 16) != 0) s = (s & 0xffff) + (s >> 16);
        return (short) ~s;
    }
}
