package io.jslirp.warmup;

import io.jslirp.link.Link;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.MemorySegment;

/**
 * The warm-up guest's side of its link to the private engine: how its frames reach the engine's
 * link and how the engine's frames reach it. Over QEMU's stream format on a socket pair
 * ({@link StreamGuest}), or through virtqueues in a memory shared with a {@code VhostUserLink}
 * ({@link VhostGuest}): the warm-up's guest is the same either way, only the engine's link (and
 * the code it compiles) differs.
 *
 * <p>A frame toward the engine is built in place: its payload, if any, is written at
 * {@link #nextFrame()} + the payload's offset in {@link #buffer()}, then {@link #append} writes its
 * headers in front; {@link #flush} hands what is appended to the engine.
 */
interface GuestLink extends AutoCloseable {
    /** What {@link #read} found: the link has ended, nothing was there, frames, frames of which one asks for an ACK. */
    int END = -1, NOTHING = 0, READ = 1, ACK_DUE = 2;

    /** Takes one frame toward the guest, length bytes at at in in; returns whether it asks for an ACK. */
    interface Frames {
        boolean frame(MemorySegment in, long at, int length);
    }

    /** The engine's end, for the private engine (closed by it). */
    Link link();

    /** The descriptor the warm-up's loop watches for this side (epoll events: {@link #events}). */
    int fd();

    /** The epoll events to watch {@link #fd()} for: while the guest reads (not paused), and while frames wait to go (pending). */
    int events(boolean reading, boolean pending);

    MemorySegment buffer();

    /** Where in {@link #buffer()} the next frame appended begins. */
    long nextFrame();

    /** Room for the next frame at {@link #nextFrame()}, less what the guest's frames of control (ACKs, DHCP) need kept. */
    long free();

    /** Appends the frame b describes (its payload, if any, already in place). */
    void append(FrameBuilder b);

    /**
     * Data bytes of one frame toward the engine for a connection of full segments of segment
     * bytes: segment, or several of them in one frame the engine's link cuts (TSO), as a Linux
     * guest's driver sends them.
     */
    int chunk(int segment);

    /** Hands the engine what is appended; returns whether some waits still (for when the link takes more). */
    boolean flush();

    /** Reads the frames that came, each handed to frames: {@link #END}, {@link #NOTHING}, {@link #READ} or {@link #ACK_DUE}. */
    int read(Frames frames);

    /** Releases the guest's side (not the engine's link). */
    @Override
    void close();
}
