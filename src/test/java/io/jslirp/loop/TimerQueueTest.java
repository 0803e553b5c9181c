package io.jslirp.loop;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TimerQueueTest {
    /**
     * Any mix of adds, removals from the middle and polls gives the timers back earliest first,
     * the same as a list sorted by deadline does.
     */
    @Property
    void pollsInDeadlineOrderWhateverWasRemoved(@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 999) Integer> ops) {
        TimerQueue queue = new TimerQueue();
        List<Timer> model = new ArrayList<>();
        List<Timer> all = new ArrayList<>();
        for (int op : ops) {
            switch (op % 4) {
                case 0, 1 -> {
                    Timer t = new Timer(() -> {});
                    t.queuedAt = op / 4;
                    queue.add(t);
                    model.add(t);
                    all.add(t);
                }
                case 2 -> {
                    if (all.isEmpty()) break;
                    Timer t = all.get(op % all.size());
                    queue.remove(t); // queued or not: a timer not queued is left alone
                    model.remove(t);
                    assertThat(t.slot).isEqualTo(-1);
                }
                default -> {
                    Timer polled = queue.poll();
                    Timer expected = earliest(model);
                    if (expected == null) assertThat(polled).isNull();
                    else assertThat(polled.queuedAt).isEqualTo(expected.queuedAt);
                    model.remove(polled);
                }
            }
            assertThat(queue.size()).isEqualTo(model.size());
        }
        long last = Long.MIN_VALUE;
        for (Timer t; (t = queue.poll()) != null; last = t.queuedAt) assertThat(t.queuedAt).isGreaterThanOrEqualTo(last);
        assertThat(queue.size()).isZero();
    }

    private static Timer earliest(List<Timer> model) {
        Timer best = null;
        for (Timer t : model) if (best == null || t.queuedAt < best.queuedAt) best = t;
        return best;
    }
}
