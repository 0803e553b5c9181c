package io.jslirp.loop;

/** Receives the readiness events (Epoll bits) of one file descriptor registered with the loop. */
@FunctionalInterface
public interface Handler {
    void onEvents(int events);
}
