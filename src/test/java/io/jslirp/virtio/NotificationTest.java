package io.jslirp.virtio;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Notification suppression both ways: interrupts to the driver (used_event, NO_INTERRUPT) and kicks to the device (avail_event, NO_NOTIFY). */
class NotificationTest {
    private static final long EVENT_IDX = 1L << Virtqueue.F_EVENT_IDX;
    private final Driver driver = new Driver(8);

    @AfterEach
    void close() {
        driver.close();
    }

    /** Makes n chains of one readable byte available. */
    private void offer(int n) {
        for (int i = 0; i < n; i++) {
            driver.desc(i, driver.buffer(1, i), 1, 0, 0);
            driver.offer(i);
        }
    }

    private void popAndPush(Virtqueue q, int n) throws VirtioException {
        for (int i = 0; i < n; i++) q.push(q.pop().head(), 0);
        q.publish();
    }

    @Test
    void needEventIsTrueExactlyWhenTheIndexPassedTheEvent() {
        assertThat(Virtqueue.needEvent(5, 6, 5)).isTrue();   // moved from 5 to 6 past event 5
        assertThat(Virtqueue.needEvent(5, 5, 4)).isFalse();  // reached 5, not past it
        assertThat(Virtqueue.needEvent(3, 10, 4)).isFalse(); // event 3 lies before old 4: passed earlier, not now
        assertThat(Virtqueue.needEvent(9, 10, 4)).isTrue();
        assertThat(Virtqueue.needEvent(10, 10, 4)).isFalse();
        assertThat(Virtqueue.needEvent(65535, 1, 65534)).isTrue(); // across the 16-bit wrap
        assertThat(Virtqueue.needEvent(0, 1, 1)).isFalse();  // nothing moved
    }

    /** vring_need_event against a plain count: an event e is crossed when old <= e < now, all on a circle of 2^16. */
    @Property(tries = 500)
    void needEventMatchesCrossing(@ForAll int event, @ForAll int old, @ForAll("steps") int step) {
        int e = event & 0xffff, o = old & 0xffff, now = (o + step) & 0xffff;
        boolean crossed = ((e - o) & 0xffff) < step;
        assertThat(Virtqueue.needEvent(e, now, o)).isEqualTo(crossed);
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<Integer> steps() {
        return net.jqwik.api.Arbitraries.integers().between(0, 32768);
    }

    @Test
    void withEventIdxTheDriverIsInterruptedWhenUsedPassesUsedEvent() throws VirtioException {
        offer(8);
        Virtqueue q = driver.queue(EVENT_IDX);
        popAndPush(q, 1);
        assertThat(q.shouldNotify()).as("the first time, always").isTrue();
        driver.usedEvent(3); // the driver wants an interrupt once used index passes 3
        popAndPush(q, 1);    // used 2
        assertThat(q.shouldNotify()).isFalse();
        popAndPush(q, 1);    // used 3
        assertThat(q.shouldNotify()).isFalse();
        popAndPush(q, 2);    // used 5: passed 3
        assertThat(q.shouldNotify()).isTrue();
        assertThat(q.shouldNotify()).as("nothing new").isFalse();
        driver.usedEvent(5);
        popAndPush(q, 1);    // used 6
        assertThat(q.shouldNotify()).isTrue();
    }

    @Test
    void withoutEventIdxNoInterruptSilencesTheDevice() throws VirtioException {
        offer(4);
        Virtqueue q = driver.queue(0);
        popAndPush(q, 1);
        assertThat(q.shouldNotify()).isTrue();
        driver.availFlags(Virtqueue.AVAIL_NO_INTERRUPT);
        popAndPush(q, 1);
        assertThat(q.shouldNotify()).isFalse();
        driver.availFlags(0);
        assertThat(q.shouldNotify()).as("nothing published since").isFalse();
        popAndPush(q, 1);
        assertThat(q.shouldNotify()).isTrue();
    }

    @Test
    void withEventIdxTheDeviceAsksForTheNextKickAtItsLastAvail() throws VirtioException {
        offer(3);
        Virtqueue q = driver.queue(EVENT_IDX);
        q.pop();
        assertThat(driver.availEvent()).isEqualTo(1);
        q.suppressKicks();
        q.pop();
        assertThat(driver.availEvent()).as("not moved while suppressed").isEqualTo(1);
        assertThat(q.allowKicks()).as("one chain still there").isFalse();
        assertThat(driver.availEvent()).isEqualTo(2);
        q.pop();
        assertThat(q.allowKicks()).isTrue();
        assertThat(driver.availEvent()).isEqualTo(3);
    }

    @Test
    void withoutEventIdxKicksAreSuppressedByTheUsedFlag() throws VirtioException {
        Virtqueue q = driver.queue(0);
        q.suppressKicks();
        assertThat(driver.usedFlags()).isEqualTo(Virtqueue.USED_NO_NOTIFY);
        assertThat(q.allowKicks()).isTrue();
        assertThat(driver.usedFlags()).isZero();
        offer(1);
        assertThat(q.allowKicks()).isFalse();
    }

    @Test
    void aKickOnTheNextAdditionIsAskedForPastChainsPendingNow() throws VirtioException {
        offer(3);
        Virtqueue q = driver.queue(EVENT_IDX);
        q.pop();
        q.suppressKicks();
        assertThat(q.kickOnNextAddition()).as("the driver's index did not move").isTrue();
        assertThat(driver.availEvent()).as("the driver's index, not the device's").isEqualTo(3);
        try (Driver other = new Driver(8)) {
            Virtqueue plain = other.queue(0);
            plain.suppressKicks();
            assertThat(other.usedFlags()).isEqualTo(Virtqueue.USED_NO_NOTIFY);
            assertThat(plain.kickOnNextAddition()).isTrue();
            assertThat(other.usedFlags()).as("without EVENT_IDX: the flag cleared").isZero();
        }
    }
}
