package io.jslirp.stack;

/**
 * The frames handed to the link since it last wrote out, and with them the payloads it may still
 * read from where they were handed over: their owner until the link's flush. Memory that payloads
 * go out from (the NAT's peek windows) is marked when it is taken ({@link #mark()}) and used again
 * only once everything sent since has been written out ({@link #writtenOutSince}), else after
 * {@link #flush()}. Whether the link holds payloads at all is stated once, with its capabilities
 * ({@link LinkCapabilities#gathersPayloads()}), and fixed when the stack is built: a link that
 * takes each payload before its send returns leaves every memory free at once.
 *
 * <p>The end-of-iteration flush goes through here ({@link #flush()}), so a flush counts whoever
 * asked for it; a link may write out more often by itself, which only frees memory sooner.
 */
public final class TxBatch {
    private final FrameSink sink;
    private final boolean holdsPayloads;
    /** Flushes so far: a mark is the count when memory was taken, and a later count means written out. */
    private long flushes;

    /** The batch of frames sink takes, holding their payloads as c says. */
    public TxBatch(FrameSink sink, LinkCapabilities c) {
        this.sink = sink;
        this.holdsPayloads = c.gathersPayloads();
    }

    /** Whether the link may read a payload after its send returned, until the flush (else memory is free at once). */
    public boolean holdsPayloads() {
        return holdsPayloads;
    }

    /** A mark for memory about to be handed to the link: passed to {@link #writtenOutSince} before the memory is used again. */
    public long mark() {
        return flushes;
    }

    /** Whether everything sent after mark was taken is out of the link's hands (written out, or never held). */
    public boolean writtenOutSince(long mark) {
        return !holdsPayloads || flushes != mark;
    }

    /** Has the link write out what it holds now: the end of each loop iteration, and memory needed again before then. */
    public void flush() {
        flushes++;
        sink.flush();
    }
}
