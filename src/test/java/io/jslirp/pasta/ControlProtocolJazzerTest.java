package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: any bytes as a pesto client's update on pasta's control socket
 * ({@link ControlProtocol#parseUpdate}). Nothing throws; an update read {@link
 * ControlProtocol.Complete} has only known tables, each at most once and with at most {@link
 * ControlProtocol#MAX_RULES} rules, reads the same once written back, and every
 * shorter part of it is {@link ControlProtocol.Incomplete}; bytes read {@link
 * ControlProtocol.Malformed} say why and stay malformed whatever follows them.
 */
class ControlProtocolJazzerTest {
    private static final Set<Integer> TABLES = Set.of(ControlProtocol.PIF_HOST, ControlProtocol.PIF_SPLICE);

    @FuzzTest(maxDuration = "4s")
    void updatesAreReadWholeOrRefused(byte[] input) {
        ControlProtocol.Update u = ControlProtocol.parseUpdate(input, input.length, TABLES);
        switch (u) {
            case ControlProtocol.Complete c -> {
                ByteBuffer out = ByteBuffer.allocate(input.length);
                c.tables().forEach((pif, rules) -> {
                    assertThat(TABLES).contains(pif);
                    assertThat(rules.size()).isLessThanOrEqualTo(ControlProtocol.MAX_RULES);
                    out.put((byte) (int) pif).putInt(rules.size());
                    for (ForwardRule r : rules) r.write(out);
                });
                out.put((byte) ControlProtocol.PIF_NONE);
                assertThat(ControlProtocol.parseUpdate(out.array(), out.position(), TABLES)).as("the update written back, read again").isEqualTo(c);
                for (int n = 0; n < input.length; n++) {
                    assertThat(ControlProtocol.parseUpdate(input, n, TABLES)).as("%d of %d bytes", n, input.length)
                            .isInstanceOf(ControlProtocol.Incomplete.class);
                }
            }
            case ControlProtocol.Malformed m -> {
                assertThat(m.why()).isNotBlank().doesNotContain("\n");
                byte[] longer = Arrays.copyOf(input, input.length + ForwardRule.SIZE + 5);
                assertThat(ControlProtocol.parseUpdate(longer, longer.length, TABLES)).as("more bytes after").isInstanceOf(ControlProtocol.Malformed.class);
            }
            case ControlProtocol.Incomplete i -> { }
        }
    }

    /** The updates pesto sent in the recorded exchanges (src/test/resources/pesto). */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() throws IOException {
        Map<String, byte[]> seeds = new TreeMap<>();
        for (String file : List.of("add.hex", "delete.hex", "replace.hex", "clear.hex")) {
            seeds.put(file.replace(".hex", ""), ControlProtocolTest.side(file, 'c'));
        }
        Seeds.write(getClass(), "updatesAreReadWholeOrRefused", seeds);
    }
}
