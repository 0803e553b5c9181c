package io.jslirp.embed;

import io.jslirp.link.Link;
import io.jslirp.sys.EventFd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * An in-memory Ethernet link between an embedding program (which plays the guest, or bridges to
 * one) and a {@link UserNetwork}: frames from the guest are pushed in with {@link #fromGuest},
 * from any thread; frames to the guest are handed to a {@link GuestReceiver} on the network's
 * thread. Frames are complete Ethernet frames without a CRC, at most the network's MTU plus 14
 * bytes of Ethernet header. Nothing is allocated per frame: frames from the guest wait in a
 * preallocated ring of {@value #QUEUE_BYTES} bytes until the network's thread takes them.
 */
public final class MemoryLink {
    /** Bytes of frames from the guest that can wait for the network's thread. */
    public static final int QUEUE_BYTES = 1 << 20;
    /** The largest frame either way: the maximum MTU (65520) and an Ethernet header, rounded up. */
    public static final int MAX_FRAME = 65536;

    /** Receives the frames the network sends to the guest. */
    @FunctionalInterface
    public interface GuestReceiver {
        /**
         * Called on the network's thread for each frame toward the guest. The frame lies between
         * the buffer's position and limit and is valid only during the call: copy what you keep.
         * The call should not block, since the whole network waits for it.
         */
        void frame(ByteBuffer frame);
    }

    private final GuestReceiver receiver;
    private final FrameQueue queue = new FrameQueue(QUEUE_BYTES);
    private final EventFd readable = new EventFd();
    private final MemorySegment outgoing = Arena.ofAuto().allocate(MAX_FRAME);
    private final ByteBuffer outgoingView = outgoing.asByteBuffer();
    private final Adapter adapter = new Adapter();
    private volatile boolean closed;
    private long dropped;

    /** A link whose frames toward the guest go to receiver. */
    public MemoryLink(GuestReceiver receiver) {
        if (receiver == null) throw new NullPointerException("receiver");
        this.receiver = receiver;
    }

    /**
     * Pushes one frame from the guest (the bytes between the buffer's position and limit, which
     * are copied; the position does not move). Safe from any thread.
     *
     * @return false when the frame was dropped: the queue is full (the network's thread is behind),
     *     the frame is larger than {@link #MAX_FRAME}, or the network has stopped
     */
    public boolean fromGuest(ByteBuffer frame) {
        return offer(MemorySegment.ofBuffer(frame), 0, frame.remaining());
    }

    /** Pushes length bytes of frame from offset, as {@link #fromGuest(ByteBuffer)}. */
    public boolean fromGuest(byte[] frame, int offset, int length) {
        java.util.Objects.checkFromIndexSize(offset, length, frame.length);
        return offer(MemorySegment.ofArray(frame), offset, length);
    }

    private boolean offer(MemorySegment frame, long offset, int length) {
        synchronized (readable) { // not while close() closes the descriptor, whose number may then be reused
            if (!closed && length <= MAX_FRAME && queue.offer(frame, offset, length)) {
                readable.signal();
                return true;
            }
        }
        synchronized (this) {
            dropped++;
        }
        return false;
    }

    /** Frames from the guest dropped so far (see {@link #fromGuest(ByteBuffer)}). */
    public synchronized long dropped() {
        return dropped;
    }

    /** The link as the engine drives it, on the network's thread. */
    Link link() {
        return adapter;
    }

    private final class Adapter implements Link {
        @Override
        public int fd(int q) {
            return readable.fd();
        }

        @Override
        public int receive(int q, MemorySegment buffer) {
            if (closed) return -1;
            int n = queue.poll(buffer);
            if (n > 0) return n;
            // Not readable again until the next offer; an offer between the poll and here is seen by the second poll.
            readable.drain();
            return queue.poll(buffer);
        }

        @Override
        public boolean send(MemorySegment frame, int length) {
            MemorySegment.copy(frame, 0, outgoing, 0, length);
            receiver.frame(outgoingView.clear().limit(length));
            return true;
        }

        @Override
        public void close() {
            synchronized (readable) {
                closed = true;
                readable.close();
            }
        }
    }
}
