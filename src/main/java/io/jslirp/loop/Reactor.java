package io.jslirp.loop;

/**
 * What the loop offers those it serves (the NAT, the forwards, the gateway's services, the link
 * receiver): readiness of their descriptors, timers on its {@link #clock()}, work at the end of
 * each iteration, and the {@link Pacing} policy that decides what is interactive. {@link EventLoop} is the one on the machine; tests drive a virtual one, with fake
 * descriptors and virtual time. Everything runs on the loop's thread.
 */
public interface Reactor {
    /** The time base of {@link #schedule} and of everything its users time. */
    Clock clock();

    /** Calls handler with fd's readiness (Epoll bits) for events. */
    void register(int fd, int events, Handler handler);

    /** Changes the events a registered fd is watched for. */
    void modify(int fd, int events);

    /** Stops watching fd. */
    void unregister(int fd);

    /** Drops fd's handler without a system call, for a descriptor about to be closed (which leaves epoll by itself). */
    void forget(int fd);

    /** Arms (or re-arms) timer to run at deadline (on {@link #clock()}), or disarms it with Long.MAX_VALUE. */
    void schedule(Timer timer, long deadline);

    /** Adds work to run after the events of every iteration, in the order added. */
    void atEndOfIteration(Runnable task);

    /** Asks for another iteration without waiting: a handler stopped at its budget while its descriptor is still readable. */
    void runAgain();

    /** Counts bytes a handler moved in this iteration: many mean bulk work, which turns busy polling off. */
    void moved(int bytes);

    /**
     * fd, a registered descriptor, was just sent a request whose answer is due within microseconds.
     * Returns whether the loop takes it for one (it polls for the answer); not where answers stopped
     * coming (a streaming flow's writes look like requests too).
     */
    boolean expectAnswer(int fd);

    /**
     * Runs task in the next iteration, without waiting, after that iteration's ready handlers
     * and a flush of what they produced: for a bulk batch that stopped at its budget, so that the
     * flows behind it (a reply, a keystroke) go first.
     */
    void continueAfterReady(Runnable task);

    /** fd, a registered descriptor, brought an interactive request: once the answer is out, the next one is due there. */
    void expectNextRequest(int fd);

    /** The policy that decides what is interactive, for the loop and those it serves. */
    Pacing pacing();

    /** Ends the loop after this iteration (the link is gone, the instance stops). */
    void stop();
}
