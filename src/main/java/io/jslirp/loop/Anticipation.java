package io.jslirp.loop;

import io.jslirp.sys.Poll;

import java.util.Arrays;

/**
 * Anticipation, lesson 3 of docs/design.md in a single-threaded loop: an interactive exchange running beside a bulk
 * transfer waits neither for the bulk batch after its request nor for the one after its answer.
 * A bulk batch with TSO is one 64 KiB frame in and out, tens of microseconds that cannot be split,
 * and a local peer answers a request faster than that. So, ahead of bulk work, the loop polls
 * for up to {@link #WAIT_NANOS} (by default) for what is due: the answer on a host socket that
 * was just sent a request, then the guest's next request on the link queue that the last one
 * came in by, for up to {@link #EXCHANGES} exchanges in turn.
 *
 * <p>It polls rather than sleeps: on a machine whose cores are all busy (the bulk sender, its
 * reader, the loop) a thread that sleeps as long as the poll would wait runs again only after
 * several times that (docs/benchmarks.md, Why the code is as it is).
 * The bulk transfer gives up that time only while an exchange is live: a descriptor that keeps
 * the loop waiting in vain ({@link Patience#MISSES} times in a row: a streaming flow, a slow
 * peer, a client that paused) is not waited for again for {@link Patience#QUIET_NANOS}, except
 * once to see whether it has become quick.
 */
final class Anticipation {
    /** How long the loop polls for input that is due, by default; a peer on this machine answers well within it. */
    static final long WAIT_NANOS = 50_000;
    /** Exchanges served in a row before the bulk work goes on. */
    private static final int EXCHANGES = 3;
    private static final int SET_SIZE = 8;

    private final EventLoop loop;
    private final long waitNanos;
    private final Poll answers = new Poll(SET_SIZE), nextRequests = new Poll(SET_SIZE);
    /** The registration each entry of the two sets was made under. */
    private final int[] answerTags = new int[SET_SIZE], requestTags = new int[SET_SIZE];
    private final int[] readyFds = new int[SET_SIZE], readyEvents = new int[SET_SIZE], readyTags = new int[SET_SIZE];
    /** Per descriptor: the registration its history belongs to, and whether waiting for it has been paying. */
    private int[] historyTags = new int[1024];
    private Patience[] patience = new Patience[1024];

    Anticipation(EventLoop loop, long waitNanos) {
        this.loop = loop;
        this.waitNanos = waitNanos;
    }

    /** fd (registered as tag) was just sent a request: its answer is due. Returns whether the loop will poll for it. */
    boolean expectAnswer(int fd, int tag, long now) {
        return expect(answers, answerTags, fd, tag, now);
    }

    /**
     * fd (registered as tag) brought an interactive request: once it is answered, the next one is
     * due there. Returns whether the loop will poll for it.
     */
    boolean expectNextRequest(int fd, int tag, long now) {
        return expect(nextRequests, requestTags, fd, tag, now);
    }

    /** Polls in turn for the answers and next requests that are due, passing on each as it comes; see the class comment. */
    void serveExchanges() {
        for (int exchange = 0; exchange < EXCHANGES; exchange++) {
            if (!await(answers, answerTags) || !await(nextRequests, requestTags)) break;
        }
        clear();
    }

    /** Forgets what this iteration expected. */
    void clear() {
        answers.clear();
        nextRequests.clear();
    }

    private boolean expect(Poll set, int[] tags, int fd, int tag, long now) {
        if (fd >= historyTags.length) {
            int size = Math.max(fd + 1, historyTags.length * 2);
            historyTags = Arrays.copyOf(historyTags, size);
            patience = Arrays.copyOf(patience, size);
        }
        if (patience[fd] == null) patience[fd] = new Patience();
        if (historyTags[fd] != tag) { // a new registration of the descriptor starts without a history
            historyTags[fd] = tag;
            patience[fd].reset();
        }
        if (!patience[fd].worthTrying(now)) return false;
        for (int i = 0; i < set.size(); i++) {
            if (set.fd(i) == fd) return true;
        }
        int i = set.size();
        if (!set.add(fd)) return false;
        tags[i] = tag;
        return true;
    }

    /** Polls for input on set's descriptors; passes on what came, then flushes what that produced. False if nothing came. */
    private boolean await(Poll set, int[] tags) {
        if (set.size() == 0) return false;
        long start = loop.clock().now(), now;
        int n;
        do {
            n = set.poll();
            now = loop.clock().now();
        } while (n == 0 && now - start < waitNanos);
        int ready = 0;
        for (int i = 0; i < set.size(); i++) {
            int fd = set.fd(i);
            int events = n > 0 ? set.readyEvents(i) & (Poll.IN | Poll.ERR | Poll.HUP) : 0;
            if (historyTags[fd] != tags[i]) continue;
            if (events != 0) {
                patience[fd].hit();
                readyFds[ready] = fd;
                readyEvents[ready] = events;
                readyTags[ready++] = tags[i];
            } else if (n <= 0) {
                patience[fd].miss(now);
            }
        }
        set.clear(); // what the handlers expect next goes into it afresh
        for (int r = 0; r < ready; r++) loop.dispatch(readyFds[r], readyTags[r], readyEvents[r]);
        if (ready == 0) return false;
        loop.flush();
        return true;
    }
}
