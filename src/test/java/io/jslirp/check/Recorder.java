package io.jslirp.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.stack.FrameSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** A link for tests: keeps a copy of each frame the stack sends, for {@link Checker#expect}. */
public final class Recorder implements FrameSink {
    private final Arena arena = Arena.ofAuto();
    private final ArrayDeque<MemorySegment> frames = new ArrayDeque<>();
    private int total;

    @Override
    public boolean send(MemorySegment frame, int length) {
        MemorySegment copy = arena.allocate(length);
        MemorySegment.copy(frame, 0, copy, 0, length);
        frames.add(copy);
        total++;
        return true;
    }

    /** The oldest frame not taken yet; fails when there is none. */
    public MemorySegment next() {
        assertThat(frames).as("a frame sent").isNotEmpty();
        return frames.poll();
    }

    /** Takes the next frame and runs the checks on it. */
    public MemorySegment expect(Checker.Check... checks) {
        MemorySegment f = next();
        Checker.expect(f, checks);
        return f;
    }

    /** Fails if a frame is waiting. */
    public void expectNone() {
        assertThat(frames).as("frames sent").isEmpty();
    }

    /** The frames not taken yet, and forgets them. */
    public List<MemorySegment> drain() {
        List<MemorySegment> l = new ArrayList<>(frames);
        frames.clear();
        return l;
    }

    public int waiting() {
        return frames.size();
    }

    /** Every frame sent so far, taken or not. */
    public int total() {
        return total;
    }
}
