package io.jslirp.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConfig;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's scripted guest and host peer really move their data through the private engine,
 * both ways and to the end (a FIN each way), at both MTUs: what it runs is the whole data path.
 */
class WarmupTest {
    @Test
    void movesItsDataBothWaysThroughAPrivateEngineAtMtu1500() {
        check(1500);
    }

    @Test
    void movesItsDataBothWaysThroughAPrivateEngineAtMtu65520() {
        check(65520);
    }

    private static void check(int mtu) {
        Warmup w = new Warmup(mtu, 0);
        w.run();
        int mss = TcpConfig.forMtu(mtu).mss();
        long bytes = Warmup.ROUNDS * Math.min((long) Warmup.FRAMES * (mtu - 52), Warmup.MAX_BYTES);
        assertThat(w.finished()).as("both directions ran to their FINs within the budget: %d frames down, %d up", w.framesDown, w.framesUp).isTrue();
        assertThat((long) w.framesDown).as("data frames to the guest (MSS %d)", mss).isGreaterThanOrEqualTo(bytes / (mtu - 52));
        assertThat((long) w.framesUp).as("data frames from the guest").isGreaterThanOrEqualTo(bytes / (mtu - 52));
    }
}
