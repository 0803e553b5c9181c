package io.jslirp.warmup;

import io.jslirp.sys.Libc;
import io.jslirp.wire.QemuStream;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The warm-up guest's frames toward the stack, in QEMU's stream format, on their way to the guest's
 * end of the socket pair: written whole, or every {@link Warmup#SPLIT_EVERY}th time only in part (a
 * frame's head read before its tail, as a VM's QEMU writes now and then).
 */
final class GuestOutput {
    private final int fd;
    private final MemorySegment out = Arena.ofAuto().allocate(1 << 20, 64);
    /** What is written already, what is appended; and writes so far. */
    private int start, end, writes;

    GuestOutput(int fd) {
        this.fd = fd;
    }

    /** The buffer a frame is appended to, and where the next one goes in it (after its stream prefix). */
    MemorySegment buffer() {
        return out;
    }

    long nextFrame() {
        return end + QemuStream.PREFIX_LENGTH;
    }

    /** Room left in the buffer. */
    long free() {
        return out.byteSize() - end;
    }

    /** Appends the frame b describes (its payload, if any, already in place at {@link #nextFrame()}). */
    void append(FrameBuilder b) {
        int length = b.writeTo(out, nextFrame());
        QemuStream.setFrameLength(out, end, length);
        end += QemuStream.PREFIX_LENGTH + length;
    }

    /** Writes what it can of what is appended; returns whether some is left (for when the descriptor takes more). */
    boolean flush() {
        boolean split = ++writes % Warmup.SPLIT_EVERY == 0 && end - start > 1;
        while (end > start) {
            int n = Libc.write(fd, out, start, split ? (end - start) / 2 : end - start);
            if (n <= 0) break;
            start += n;
            if (split) break; // the rest when the loop comes back (EPOLLOUT)
        }
        if (start == end) start = end = 0;
        else if (start > out.byteSize() / 2) {
            MemorySegment.copy(out, start, out, 0, end - start);
            end -= start;
            start = 0;
        }
        return end > start;
    }
}
