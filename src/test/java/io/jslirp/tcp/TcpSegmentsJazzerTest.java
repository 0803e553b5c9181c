package io.jslirp.tcp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Choices;
import io.jslirp.check.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: the TCP state machine driven by fuzzed guest segments (flags, sequence and
 * acknowledgment numbers, windows, timestamps, SACK blocks, payloads up to TSO size) and host
 * events (data, reads, FIN, reset) on a virtual clock (time passing, timers firing), the input's
 * bytes read as {@link TcpFuzzTest.Scenario}'s choices. After every event: nothing threw, every
 * segment sent is well formed, the host takes exactly the guest's stream in order and the guest
 * is sent the host's stream at its sequence numbers, the window offered never reaches beyond the
 * receive buffer, data sent stays within the guest's window, and buffer memory stays within its
 * bound (all of it given back once closed).
 */
class TcpSegmentsJazzerTest {
    @FuzzTest(maxDuration = "12s")
    void segmentsKeepTheStreamsWindowsAndMemory(byte[] input) {
        new TcpFuzzTest.Scenario(Choices.of(input)).run();
    }

    /** TcpFuzzTest's random scenarios, 60 events each, as the bytes that replay them. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Seeds.write(getClass(), "segmentsKeepTheStreamsWindowsAndMemory",
                Seeds.recorded("scenario", 24, choices -> new TcpFuzzTest.Scenario(choices).run(60)));
    }
}
