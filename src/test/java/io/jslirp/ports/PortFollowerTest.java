package io.jslirp.ports;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Errno;
import io.jslirp.sys.SysException;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The auto follower: opens what is new, closes what went, retries what could not be opened. */
class PortFollowerTest {
    private final List<String> log = new ArrayList<>();
    private final BitSet taken = new BitSet();

    private PortFollower follower() {
        return new PortFollower("-t auto", p -> {
            if (taken.get(p)) throw new SysException("listen on " + p, Errno.EADDRINUSE);
            log.add("open " + p);
            return () -> log.add("close " + p);
        });
    }

    private static BitSet ports(int... ps) {
        BitSet b = new BitSet();
        for (int p : ps) b.set(p);
        return b;
    }

    @Test
    void followsTheScan() {
        PortFollower f = follower();
        f.follow(ports(80, 443));
        assertThat(log).containsExactly("open 80", "open 443");
        f.follow(ports(80, 443));
        assertThat(log).hasSize(2);
        f.follow(ports(443, 8080));
        assertThat(log).containsExactly("open 80", "open 443", "close 80", "open 8080");
        assertThat(f.ports()).isEqualTo(ports(443, 8080));
        f.close();
        assertThat(log).endsWith("close 443", "close 8080");
        assertThat(f.ports().isEmpty()).isTrue();
    }

    @Test
    void aTakenPortIsTriedAgainAtTheNextScan() {
        PortFollower f = follower();
        taken.set(8080);
        f.follow(ports(8080));
        assertThat(f.ports().isEmpty()).isTrue();
        taken.clear(8080);
        f.follow(ports(8080));
        assertThat(f.ports()).isEqualTo(ports(8080));
        assertThat(log).containsExactly("open 8080");
    }

    @Test
    void portZeroIsNeverOpened() {
        PortFollower f = follower();
        f.follow(ports(0, 22));
        assertThat(log).containsExactly("open 22");
    }
}
