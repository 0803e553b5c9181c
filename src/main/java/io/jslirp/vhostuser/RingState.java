package io.jslirp.vhostuser;

import io.jslirp.virtio.Virtqueue;

/** What the front-end has said of one ring so far, and its queue while started. */
final class RingState {
    int size;
    long descUser, availUser, usedUser;
    boolean addressed;
    int base;
    boolean kicked;
    boolean enabled;
    int kickFd = -1, callFd = -1, errFd = -1;
    /** The queue while started (memory, size, addresses and a kick known). */
    Virtqueue queue;
    /** Started and enabled: the caller serves it. */
    boolean running;

    /** Back to nothing known, as after RESET_OWNER or on a new connection. */
    void clear() {
        size = 0;
        descUser = availUser = usedUser = 0;
        addressed = kicked = enabled = running = false;
        base = 0;
        kickFd = callFd = errFd = -1;
        queue = null;
    }
}
