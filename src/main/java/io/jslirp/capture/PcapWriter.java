package io.jslirp.capture;

import io.jslirp.util.Log;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Writes Ethernet frames to a classic pcap file (LINKTYPE_ETHERNET, microsecond timestamps,
 * little-endian) through a 1 MiB buffer, written out when full, on {@link #writeOut()} (the
 * engine calls it every second) and on {@link #close()}. The file does not grow beyond maxBytes: the
 * first frame that would pass it stops the capture, with one log line; so does a write error.
 */
public final class PcapWriter implements AutoCloseable {
    static final int MAGIC = 0xa1b2c3d4;
    static final int VERSION_MAJOR = 2, VERSION_MINOR = 4;
    static final int LINKTYPE_ETHERNET = 1;
    /** Larger than any frame jslirp sees (a 64 KiB TSO frame), as tcpdump's default. */
    static final int SNAPLEN = 262144;
    static final int FILE_HEADER_LENGTH = 24, RECORD_HEADER_LENGTH = 16;
    private static final int BUFFER_BYTES = 1 << 20;

    private final Path path;
    private final FileChannel out;
    private final long maxBytes;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment bufferSegment = MemorySegment.ofBuffer(buffer);
    /** Wall clock at opening, in microseconds since the epoch, and the monotonic clock then. */
    private final long startMicros, startNanos;
    /** Bytes in the file and the buffer. */
    private long size;
    private boolean stopped;

    private PcapWriter(Path path, FileChannel out, long maxBytes) {
        this.path = path;
        this.out = out;
        this.maxBytes = maxBytes;
        Instant now = Instant.now();
        this.startNanos = System.nanoTime();
        this.startMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    /** Creates (or truncates) file and writes the pcap header; maxBytes must leave room for it. */
    public static PcapWriter open(Path file, long maxBytes) throws IOException {
        if (maxBytes < FILE_HEADER_LENGTH) throw new IllegalArgumentException("pcap size limit below the " + FILE_HEADER_LENGTH + "-byte header");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        PcapWriter w = new PcapWriter(file, channel, maxBytes);
        w.buffer.putInt(MAGIC).putShort((short) VERSION_MAJOR).putShort((short) VERSION_MINOR)
                .putInt(0) // thiszone: timestamps are UTC
                .putInt(0) // sigfigs
                .putInt(SNAPLEN).putInt(LINKTYPE_ETHERNET);
        w.size = FILE_HEADER_LENGTH;
        w.writeOut();
        return w;
    }

    /** Appends the first length bytes of frame as one record, unless the capture has stopped. */
    public void write(MemorySegment frame, int length) {
        if (stopped) return;
        int captured = Math.min(length, SNAPLEN);
        int record = RECORD_HEADER_LENGTH + captured;
        if (size + record > maxBytes) {
            Log.warn("pcap " + path + " reached its size limit of " + maxBytes + " bytes (--pcap-size): capture stopped");
            stop();
            return;
        }
        if (buffer.remaining() < record) writeOut();
        if (stopped) return;
        long micros = startMicros + (System.nanoTime() - startNanos) / 1000;
        buffer.putInt((int) (micros / 1_000_000)).putInt((int) (micros % 1_000_000)).putInt(captured).putInt(length);
        MemorySegment.copy(frame, 0, bufferSegment, buffer.position(), captured);
        buffer.position(buffer.position() + captured);
        size += record;
    }

    /** Writes the buffered records to the file. */
    public void writeOut() {
        if (stopped) return;
        buffer.flip();
        try {
            while (buffer.hasRemaining()) out.write(buffer);
        } catch (IOException e) {
            Log.warn("pcap " + path + ": " + e.getMessage() + ": capture stopped");
            stopped = true;
        }
        buffer.clear();
    }

    private void stop() {
        writeOut();
        stopped = true;
    }

    /** Writes out what is buffered and closes the file. */
    @Override
    public void close() {
        writeOut();
        stopped = true;
        try {
            out.close();
        } catch (IOException e) {
            Log.warn("pcap " + path + ": " + e.getMessage());
        }
    }
}
