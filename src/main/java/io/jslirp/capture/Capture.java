package io.jslirp.capture;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/** {@code --pcap}: the frames a filter (null: all) keeps, written by a {@link PcapWriter}. */
public final class Capture implements AutoCloseable {
    /** 1 GiB: a forgotten capture does not fill the disk. */
    public static final long DEFAULT_MAX_BYTES = 1L << 30;

    /**
     * What to capture.
     *
     * @param file     the pcap file, created or truncated
     * @param maxBytes the size the file stops growing at
     * @param filter   the frames to keep, or null for all
     */
    public record Settings(Path file, long maxBytes, CaptureFilter filter) {}

    private final PcapWriter writer;
    private final CaptureFilter filter;

    public Capture(PcapWriter writer, CaptureFilter filter) {
        this.writer = writer;
        this.filter = filter;
    }

    public static Capture open(Settings settings) throws IOException {
        return new Capture(PcapWriter.open(settings.file(), settings.maxBytes()), settings.filter());
    }

    /** Records one frame of length bytes crossing the link, either way. */
    public void frame(MemorySegment f, int length) {
        if (filter == null || filter.matches(f, length)) writer.write(f, length);
    }

    /** Writes what is buffered to the file, so that a reader following it sees the frames. */
    public void writeOut() {
        writer.writeOut();
    }

    @Override
    public void close() {
        writer.close();
    }
}
