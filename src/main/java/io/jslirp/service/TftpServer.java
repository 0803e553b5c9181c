package io.jslirp.service;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tftp;
import io.jslirp.wire.Udp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The gateway's read-only TFTP server (QEMU's {@code -nic user,tftp=DIR}): answers read requests
 * to the gateway's port 69 from {@link TftpFiles}, one block at a time in lock step (RFC 1350).
 * As in QEMU, replies come from port 69 and a transfer is known by the client's address and port.
 * A block not acknowledged within {@link #RETRANSMIT_NANOS} is sent again, at most
 * {@link #MAX_RETRANSMITS} times; at most {@link #MAX_TRANSFERS} transfers run at once.
 */
public final class TftpServer {
    static final int MAX_TRANSFERS = 16;
    static final long RETRANSMIT_NANOS = 1_000_000_000L;
    static final int MAX_RETRANSMITS = 5;
    /** Where a datagram's payload goes in the output's frame. */
    private final long payload;

    private final Reactor loop;
    private final Clock clock;
    private final GuestOutput stack;
    /** The gateway's address handle, held for the life of the server: the transfers come from its port 69. */
    private final int gateway;
    private final TftpFiles files;
    private final Counters counters;
    /** The largest block that fits the MTU without fragments; a client asking for more gets this. */
    private final int maxBlockSize;
    /** The data area of a DATA message in the stack's outgoing frame: blocks are read straight into it. */
    private final ByteBuffer dataArea;
    private final Transfer[] transfers = new Transfer[MAX_TRANSFERS];

    public TftpServer(Reactor loop, GuestOutput stack, TftpFiles files) {
        this.loop = loop;
        this.clock = loop.clock();
        this.stack = stack;
        this.files = files;
        this.counters = stack.counters();
        this.payload = stack.udpPayloadOffset();
        this.gateway = stack.gateway();
        stack.addresses().retain(gateway);
        int fitting = stack.mtu() - Ipv4.MIN_HEADER_LENGTH - Udp.HEADER_LENGTH - Tftp.HEADER_LENGTH;
        this.maxBlockSize = Math.clamp(fitting, Tftp.MIN_BLOCK_SIZE, Tftp.MAX_BLOCK_SIZE);
        this.dataArea = stack.frame().asSlice(payload + Tftp.HEADER_LENGTH, Tftp.MAX_BLOCK_SIZE).asByteBuffer();
    }

    /** Takes a datagram the guest sent to the gateway's TFTP port. */
    public void datagram(MemorySegment f, long off, int len, int guest, int guestPort) {
        int opcode = Tftp.opcode(f, off, len);
        Transfer current = find(guest, guestPort);
        switch (opcode) {
            case Tftp.RRQ, Tftp.WRQ -> {
                if (current != null) current.close(); // the client started over from the same port
                request(f, off, len, guest, guestPort);
            }
            case Tftp.ACK -> {
                if (current != null && len >= Tftp.HEADER_LENGTH) current.acknowledged(Tftp.block(f, off));
                else counters.malformed++;
            }
            case Tftp.ERROR -> {
                if (current != null) current.close(); // the client gives up (or declines our options)
            }
            default -> counters.malformed++;
        }
    }

    private void request(MemorySegment f, long off, int len, int guest, int guestPort) {
        Tftp.Request request = Tftp.parseRequest(f, off, len);
        if (request == null) {
            counters.malformed++;
            return;
        }
        if (request.opcode() == Tftp.WRQ) {
            sendError(guest, guestPort, Tftp.ERR_ACCESS, "read-only server");
            return;
        }
        if (!request.mode().equals("octet")) {
            sendError(guest, guestPort, Tftp.ERR_ILLEGAL, "only octet mode");
            return;
        }
        int slot = freeSlot();
        if (slot < 0) {
            sendError(guest, guestPort, Tftp.ERR_UNDEFINED, "too many transfers");
            return;
        }
        TftpFiles.Opened opened = files.open(request.filename());
        if (opened.channel() == null) {
            Log.debug(() -> "tftp " + stack.addresses().format(guest) + ":" + guestPort + " " + request.filename() + ": " + opened.message());
            sendError(guest, guestPort, opened.error(), opened.message());
            return;
        }
        int blockSize = request.blockSize() < 0 ? -1 : Math.min(request.blockSize(), maxBlockSize);
        long transferSize = request.transferSize() < 0 ? -1 : opened.size();
        Transfer t = new Transfer(slot, guest, guestPort, opened.channel(), blockSize, transferSize);
        transfers[slot] = t;
        Log.debug(() -> t + " started");
        t.sendCurrent();
    }

    private Transfer find(int guest, int guestPort) {
        for (Transfer t : transfers) {
            if (t != null && t.guest == guest && t.guestPort == guestPort) return t;
        }
        return null;
    }

    private int freeSlot() {
        for (int i = 0; i < transfers.length; i++) {
            if (transfers[i] == null) return i;
        }
        return -1;
    }

    private void sendError(int guest, int guestPort, int code, String message) {
        int length = Tftp.writeError(stack.frame(), payload, code, message);
        stack.sendUdp(gateway, Tftp.PORT, guest, guestPort, length);
    }

    public void closeAll() {
        for (Transfer t : transfers) {
            if (t != null) t.close();
        }
    }

    /** One file on its way to a client: the block in flight (0: the OACK) and its retransmit timer. */
    private final class Transfer {
        final int slot, guest, guestPort;
        final FileChannel file;
        /** The negotiated options, -1 when not negotiated. */
        final int negotiatedBlockSize;
        final long transferSize;
        final int blockSize;
        final Timer retransmit = new Timer(this::timedOut);
        /** Number of the block in flight; it grows past 65535, the wire carries its low 16 bits. */
        long block;
        int retransmits;
        /** Whether the block in flight is the last (shorter than the block size). */
        boolean last;

        Transfer(int slot, int guest, int guestPort, FileChannel file, int negotiatedBlockSize, long transferSize) {
            this.slot = slot;
            this.guest = guest;
            stack.addresses().retain(guest);
            this.guestPort = guestPort;
            this.file = file;
            this.negotiatedBlockSize = negotiatedBlockSize;
            this.transferSize = transferSize;
            this.blockSize = negotiatedBlockSize > 0 ? negotiatedBlockSize : Tftp.DEFAULT_BLOCK_SIZE;
            this.block = negotiatedBlockSize >= 0 || transferSize >= 0 ? 0 : 1;
        }

        void acknowledged(int number) {
            // An older ACK is a duplicate: answering it would double every later block (the
            // Sorcerer's Apprentice bug, RFC 1123 4.2.3.1), so only the timer retransmits.
            if (number != (int) (block & 0xffff)) return;
            if (last) {
                Log.debug(() -> this + " done");
                close();
                return;
            }
            block++;
            retransmits = 0;
            sendCurrent();
        }

        void sendCurrent() {
            MemorySegment frame = stack.frame();
            int length;
            if (block == 0) {
                length = Tftp.writeOack(frame, payload, negotiatedBlockSize, transferSize);
            } else {
                int n = read((block - 1) * blockSize);
                if (n < 0) {
                    sendError(guest, guestPort, Tftp.ERR_UNDEFINED, "read error");
                    close();
                    return;
                }
                last = n < blockSize;
                Tftp.writeDataHeader(frame, payload, block);
                length = Tftp.HEADER_LENGTH + n;
            }
            stack.sendUdp(gateway, Tftp.PORT, guest, guestPort, length);
            loop.schedule(retransmit, clock.now() + RETRANSMIT_NANOS);
        }

        /** Reads up to one block at position into the outgoing frame; the bytes read, or -1. */
        private int read(long position) {
            dataArea.clear().limit(blockSize);
            try {
                while (dataArea.hasRemaining()) {
                    if (file.read(dataArea, position + dataArea.position()) < 0) break;
                }
                return dataArea.position();
            } catch (IOException e) {
                Log.warn(this + ": " + e.getMessage());
                return -1;
            }
        }

        private void timedOut() {
            if (++retransmits > MAX_RETRANSMITS) {
                Log.debug(() -> this + " timed out");
                close();
                return;
            }
            sendCurrent();
        }

        void close() {
            loop.schedule(retransmit, Long.MAX_VALUE);
            transfers[slot] = null;
            stack.addresses().release(guest);
            try {
                file.close();
            } catch (IOException ignored) {
                // read-only: nothing is lost
            }
        }

        @Override
        public String toString() {
            return "tftp " + stack.addresses().format(guest) + ":" + guestPort + " block " + block;
        }
    }
}
