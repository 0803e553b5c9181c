package io.jslirp.vhostuser;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The backend's answer to one message: actions to carry out in order, then the reply (if any) to
 * send, or an error: the connection is to be closed after the actions, which then release
 * everything it held. One per backend, refilled by each call.
 */
public final class Outcome {
    private final List<Action> actions = new ArrayList<>();
    private final MemorySegment replyBuffer;
    private int replyLength;
    private String error;

    Outcome(MemorySegment replyBuffer) {
        this.replyBuffer = replyBuffer;
    }

    void reset() {
        actions.clear();
        replyLength = 0;
        error = null;
    }

    void add(Action a) {
        actions.add(a);
    }

    void reply(int length) {
        replyLength = length;
    }

    void fail(String why) {
        replyLength = 0;
        error = why;
    }

    MemorySegment replyBuffer() {
        return replyBuffer;
    }

    public List<Action> actions() {
        return actions;
    }

    /** The reply's bytes at the start of the reply buffer, 0 when none is due. */
    public int replyLength() {
        return replyLength;
    }

    public MemorySegment reply() {
        return replyBuffer.asSlice(0, replyLength);
    }

    /** Why the connection is to be closed, or null. */
    public String error() {
        return error;
    }
}
