package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PollTest {
    @Test
    void reportsWhichDescriptorsHaveInputWithoutWaiting() {
        try (EventFd quiet = new EventFd(); EventFd ready = new EventFd()) {
            Poll poll = new Poll(2);
            assertThat(poll.add(quiet.fd())).isTrue();
            assertThat(poll.add(ready.fd())).isTrue();
            assertThat(poll.add(ready.fd())).as("beyond its capacity").isFalse();
            assertThat(poll.poll()).isZero();

            ready.signal();
            assertThat(poll.poll()).isEqualTo(1);
            assertThat(poll.fd(1)).isEqualTo(ready.fd());
            assertThat(poll.readyEvents(1)).isEqualTo(Poll.IN);
            assertThat(poll.readyEvents(0)).isZero();

            poll.clear();
            assertThat(poll.size()).isZero();
            assertThat(poll.add(quiet.fd())).isTrue();
            assertThat(poll.poll()).isZero();
        }
    }
}
