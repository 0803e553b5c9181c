package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Sockets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * A link's accept that fails with EMFILE (no descriptor left) until {@link #allow}ed, and the
 * loop's part in front of such a link: wait for the link's descriptor, then call receive. A
 * listener that kept failing at once would make the link's descriptor readable again at once;
 * resting, its attempts come at least {@link ListenerRest#REST_NANOS} apart (the monotonic
 * clock's gaps can only be longer on a loaded machine, never shorter).
 */
final class RefusingAccept implements IntUnaryOperator {
    private final List<Long> refusedAt = new ArrayList<>();
    private boolean allowed;

    @Override
    public int applyAsInt(int listener) {
        if (allowed) return Sockets.accept4(listener, null);
        refusedAt.add(System.nanoTime());
        return -Errno.EMFILE;
    }

    /** Accepts succeed from now on. */
    void allow() {
        allowed = true;
    }

    /**
     * As the loop would: waits for linkFd to be readable and calls receive, until accept was
     * refused attempts times (10 s at most); then asserts the attempts were a rest apart.
     */
    void refuse(int attempts, int linkFd, Runnable receive) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        try (Epoll loop = new Epoll(1)) {
            loop.add(linkFd, Epoll.IN);
            while (refusedAt.size() < attempts && System.nanoTime() < deadline) {
                if (loop.wait(100) > 0) receive.run();
            }
        }
        assertThat(refusedAt).as("accept was tried again after each rest").hasSizeGreaterThanOrEqualTo(attempts);
        for (int i = 1; i < refusedAt.size(); i++) {
            assertThat(refusedAt.get(i) - refusedAt.get(i - 1))
                    .as("nanoseconds between refused accepts %d and %d: the listener rested", i - 1, i)
                    .isGreaterThanOrEqualTo(ListenerRest.REST_NANOS);
        }
    }
}
