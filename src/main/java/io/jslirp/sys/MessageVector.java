package io.jslirp.sys;

import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Datagrams for one sendmmsg(2) or recvmmsg(2) on a connected socket: a native array of struct
 * mmsghdr, each message one buffer (one iovec), no addresses. The buffers' segments are kept on
 * the Java side too, so a fake socket can serve the same calls.
 *
 * <pre>
 *  struct mmsghdr (64 bytes)              struct iovec (16 bytes)
 *   0  msg_name      8   (0)               0  iov_base  8
 *   8  msg_namelen   4   (0)               8  iov_len   8
 *  16  msg_iov       8 ──────────────────▶
 *  24  msg_iovlen    8   (1)
 *  32  msg_control   8   (0)
 *  40  msg_controllen 8  (0)
 *  48  msg_flags     4   (MSG_TRUNC set by recvmmsg when a datagram did not fit)
 *  56  msg_len       4   (bytes sent or received, set by the kernel)
 * </pre>
 */
public final class MessageVector {
    private static final int MMSGHDR = 64, IOVEC = 16;
    private static final int MSG_IOV = 16, MSG_IOVLEN = 24, MSG_FLAGS = 48, MSG_LEN = 56;
    private static final long SENDMMSG = nr(307, 269), RECVMMSG = nr(299, 243);

    private final int capacity;
    private final MemorySegment headers, iovecs;
    private final MemorySegment[] buffers;
    private final long[] offsets;
    private final int[] lengths;

    public MessageVector(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity " + capacity);
        this.capacity = capacity;
        Arena arena = Arena.ofAuto();
        this.headers = arena.allocate((long) capacity * MMSGHDR, 8);
        this.iovecs = arena.allocate((long) capacity * IOVEC, 8);
        this.buffers = new MemorySegment[capacity];
        this.offsets = new long[capacity];
        this.lengths = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            headers.set(JAVA_LONG_UNALIGNED, (long) i * MMSGHDR + MSG_IOV, iovecs.address() + (long) i * IOVEC);
            headers.set(JAVA_LONG_UNALIGNED, (long) i * MMSGHDR + MSG_IOVLEN, 1);
        }
    }

    public int capacity() {
        return capacity;
    }

    /** Message i is length bytes at offset of buffer, a native segment (to send, or room to receive into). */
    public void set(int i, MemorySegment buffer, long offset, int length) {
        Objects.checkIndex(i, capacity);
        long base = Native.address(buffer, offset, length);
        iovecs.set(JAVA_LONG_UNALIGNED, (long) i * IOVEC, base);
        iovecs.set(JAVA_LONG_UNALIGNED, (long) i * IOVEC + 8, length);
        buffers[i] = buffer;
        offsets[i] = offset;
        lengths[i] = length;
        headers.set(JAVA_INT_UNALIGNED, (long) i * MMSGHDR + MSG_LEN, 0);
        headers.set(JAVA_INT_UNALIGNED, (long) i * MMSGHDR + MSG_FLAGS, 0);
    }

    public MemorySegment buffer(int i) {
        return buffers[i];
    }

    public long offset(int i) {
        return offsets[i];
    }

    /** The length message i was set with: what is to be sent, or the room to receive into. */
    public int size(int i) {
        return lengths[i];
    }

    /** Bytes of message i that the last call sent or received. */
    public int length(int i) {
        return headers.get(JAVA_INT_UNALIGNED, (long) Objects.checkIndex(i, capacity) * MMSGHDR + MSG_LEN);
    }

    /** Records that n bytes of message i were sent or received (what the kernel does; for fakes). */
    public void length(int i, int n) {
        headers.set(JAVA_INT_UNALIGNED, (long) Objects.checkIndex(i, capacity) * MMSGHDR + MSG_LEN, n);
    }

    /**
     * sendmmsg of messages [first, first + count) on fd, not blocking: how many went (from first),
     * or -errno when the first failed (the error of a later one comes with the next call).
     */
    public int send(int fd, int first, int count) {
        Objects.checkFromIndexSize(first, count, capacity);
        MemorySegment err = scratch().errno;
        long r = syscall(SENDMMSG, err, fd, headers.address() + (long) first * MMSGHDR, count, Sockets.MSG_DONTWAIT | Sockets.MSG_NOSIGNAL);
        return r < 0 ? -Native.errno(err) : (int) r;
    }

    /** recvmmsg into messages [0, count) from fd, not blocking: how many came, or -errno (EAGAIN: none). */
    public int receive(int fd, int count) {
        Objects.checkFromIndexSize(0, count, capacity);
        MemorySegment err = scratch().errno;
        long r = syscall(RECVMMSG, err, fd, headers.address(), count, Sockets.MSG_DONTWAIT, 0L);
        return r < 0 ? -Native.errno(err) : (int) r;
    }
}
