package io.jslirp.stack;

/**
 * What a link can do with the frames the stack sends it: stated once by the link
 * ({@link FrameSink#capabilities()}) and read once, when the stack is built, which picks from it
 * the one way TCP segments and UDP datagrams go out (copied into the frame, gathered from where
 * the payload waits, or left for the link to checksum and cut). Nothing asks again per segment.
 *
 * @param gathersPayloads the link may read a payload handed to it after the send returned, until
 *                        its {@link FrameSink#flush}: the payload is not copied into the frame, and
 *                        its owner keeps it as it is until then
 * @param offloadsTcp     the link completes TCP checksums (the field holds only the pseudo-header
 *                        sum) and cuts a TCP frame of up to 64 KiB into segments (TSO), as the
 *                        frame's {@link TxFrame} says
 * @param offloadsUdp     the link cuts one UDP frame into datagrams (USO), as the frame's
 *                        {@link TxFrame} says, completing their checksums
 * @param spreadsFlows    the link spreads frames over several queues by their flow: the stack
 *                        then hashes each frame's flow ({@link TxFrame#flowKey()})
 */
public record LinkCapabilities(boolean gathersPayloads, boolean offloadsTcp, boolean offloadsUdp, boolean spreadsFlows) {
    /** A link that takes whole frames, checksums filled, on one queue (a datagram socket, memory). */
    public static final LinkCapabilities WHOLE_FRAMES = new LinkCapabilities(false, false, false, false);

    /** A link that writes a large payload from where it waits, at its flush (QEMU's stream socket). */
    public static final LinkCapabilities GATHERS = new LinkCapabilities(true, false, false, false);
}
