package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MacTest {

    /** Reference formatting: six lower-case two-digit hex bytes, most significant first. */
    private static String reference(long mac) {
        StringBuilder b = new StringBuilder();
        for (int i = 5; i >= 0; i--) {
            int v = (int) ((mac >> (8 * i)) & 0xff);
            b.append("0123456789abcdef".charAt(v >> 4)).append("0123456789abcdef".charAt(v & 15));
            if (i > 0) b.append(':');
        }
        return b.toString();
    }

    @Property(tries = 500)
    void formatThenParseRoundTrips(@ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac) {
        String text = Mac.format(mac);
        assertThat(text).isEqualTo(reference(mac));
        assertThat(Mac.parse(text)).isEqualTo(mac);
        assertThat(Mac.parse(text.toUpperCase(Locale.ROOT))).isEqualTo(mac);
    }

    @Property(tries = 300)
    void toBytesIsBigEndian(@ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac) {
        byte[] b = Mac.toBytes(mac);
        assertThat(b).hasSize(6);
        assertThat(Ref.mac(b, 0)).isEqualTo(mac);
    }

    @Test
    void knownValues() {
        assertThat(Mac.format(0x5255_0a00_0202L)).isEqualTo("52:55:0a:00:02:02");
        assertThat(Mac.parse("52:55:0A:00:02:02")).isEqualTo(0x5255_0a00_0202L);
        assertThat(Mac.format(Ethernet.BROADCAST)).isEqualTo("ff:ff:ff:ff:ff:ff");
        assertThat(Mac.toBytes(0x0102_0304_0506L)).containsExactly(1, 2, 3, 4, 5, 6);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "52:55:0a:00:02", "52:55:0a:00:02:02:03", "52-55-0a-00-02-02", "5:55:0a:00:02:02",
            "525:5:0a:00:02:02", "52:55:0a:00:02:0g", "52:55:0a:00:02:+2", "52:55:0a:00:02:-2", " 52:55:0a:00:02:02",
            "52:55:0a:00:02:02 ", "52:55::00:02:02", "::::::", "52:55:0a:00:02:\u0661\u0662", "52:55:0a:00:02:\uff21\uff22"})
    void parseRejectsMalformedText(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> Mac.parse(text)).withMessageContaining(text);
    }

    private static final Pattern MAC = Pattern.compile("[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}");

    @Provide
    Arbitrary<String> macLike() {
        return Arbitraries.strings().withChars("0123456789abcdefABCDEF:").withChars("g-+ \u0663\uff21").ofMaxLength(20);
    }

    @Property(tries = 500)
    void parseAcceptsExactlySixColonSeparatedHexPairs(@ForAll("macLike") String text) {
        assertParseAgreesWithReference(text);
    }

    @Property(tries = 300)
    void parseOfArbitraryStringsReturnsOrThrowsIllegalArgument(@ForAll @Size(max = 20) String text) {
        assertParseAgreesWithReference(text);
    }

    private static void assertParseAgreesWithReference(String text) {
        if (MAC.matcher(text).matches()) {
            assertThat(reference(Mac.parse(text))).isEqualTo(text.toLowerCase(Locale.ROOT));
        } else {
            assertThatThrownBy(() -> Mac.parse(text)).isExactlyInstanceOf(IllegalArgumentException.class);
        }
    }
}
