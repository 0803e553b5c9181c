package io.jslirp.vhostuser;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Choices;
import io.jslirp.check.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: any sequence of vhost-user messages from a front-end (served requests with
 * fields small, near-valid or anything, descriptors attached or not, after a valid start or
 * none), the input's bytes read as {@link BackendFuzzTest}'s choices. The backend never throws
 * but for an undecodable message, a message it refuses leaves it holding no ring, and once the
 * connection closes every descriptor it was given has been closed or handed over exactly once.
 */
class BackendJazzerTest {
    @FuzzTest(maxDuration = "4s")
    void anyMessagesKeepTheBackendWhole(byte[] input) {
        BackendFuzzTest.run(Choices.of(input), 200);
    }

    /** BackendFuzzTest's random sequences, 30 messages each, as the bytes that replay them. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Seeds.write(getClass(), "anyMessagesKeepTheBackendWhole", Seeds.recorded("messages", 16, choices -> BackendFuzzTest.run(choices, 30)));
    }
}
