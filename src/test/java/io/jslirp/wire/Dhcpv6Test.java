package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class Dhcpv6Test {
    // An Information-Request as a client sends it: client id (DUID-LLT), option request (DNS, domain list), elapsed time.
    private static final byte[] INFORMATION_REQUEST = Segs.hex(
            "0b 12a4f0"
            + "0001 000e 00010001 2c3a1b05 020000000001"
            + "0006 0004 0017 0018"
            + "0008 0002 0000");

    @Test
    void readsAnInformationRequest() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.of(kind, arena, INFORMATION_REQUEST);
                int len = INFORMATION_REQUEST.length;
                assertThat(Dhcpv6.messageType(s, 0)).isEqualTo(Dhcpv6.INFORMATION_REQUEST);
                assertThat(Dhcpv6.transactionId(s, 0)).isEqualTo(0x12a4f0);
                long clientId = Dhcpv6.findOption(s, 0, len, Dhcpv6.OPT_CLIENT_ID);
                assertThat(clientId).isEqualTo(4);
                assertThat(Dhcpv6.optionLength(s, clientId)).isEqualTo(14);
                assertThat(Dhcpv6.findOption(s, 0, len, 8)).isEqualTo(30);
                assertThat(Dhcpv6.findOption(s, 0, len, Dhcpv6.OPT_SERVER_ID)).isEqualTo(-1);
                assertThat(Dhcpv6.check(s, 0, len)).isNull();
                assertThat(Dhcpv6.check(s, 0, len - 1)).isEqualTo(Drop.BAD_OPTION); // the last option runs past the end
            }
        }
    }

    @Test
    void writesAReplyWithTheClientsIdAndTheDnsServer() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment request = Segs.of(Kind.NATIVE, arena, INFORMATION_REQUEST);
            MemorySegment s = arena.allocate(100);
            long clientId = Dhcpv6.findOption(request, 0, INFORMATION_REQUEST.length, Dhcpv6.OPT_CLIENT_ID);
            int len = Dhcpv6.write(s, 0, new Dhcpv6.Reply().transaction(0x12a4f0).clientId(request, clientId).server(0x5255_0a00_0202L)
                    .dns(0xfd00_0000_0000_0000L, 3));
            assertThat(Segs.bytes(s, 0, len)).isEqualTo(Segs.hex(
                    "07 12a4f0"
                    + "0001 000e 00010001 2c3a1b05 020000000001"      // the client's id, as it sent it
                    + "0002 000a 0003 0001 52550a000202"               // ours: DUID-LL of the router's MAC
                    + "0017 0010 fd000000000000000000000000000003")); // DNS servers: fd00::3
            assertThat(Dhcpv6.findOption(s, 0, len, Dhcpv6.OPT_DNS_SERVERS)).isEqualTo(36);

            int withoutClientId = Dhcpv6.write(s, 0, new Dhcpv6.Reply().transaction(1).clientId(request, -1).server(0x5255_0a00_0202L)
                    .dns(0xfd00_0000_0000_0000L, 3));
            assertThat(withoutClientId).isEqualTo(len - 18);
            assertThat(Dhcpv6.findOption(s, 0, withoutClientId, Dhcpv6.OPT_CLIENT_ID)).isEqualTo(-1);
        }
    }
}
