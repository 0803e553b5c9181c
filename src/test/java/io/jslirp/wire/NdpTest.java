package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class NdpTest {
    private static final long GUEST_MAC = 0x0200_0000_0001L, ROUTER_MAC = 0x5255_0a00_0202L;

    @Test
    void readsANeighborSolicitationAndItsOptions() {
        // From the guest: who has fd00::2? With its source link-layer address option.
        byte[] ns = Segs.hex("8700 0000 00000000 fd000000000000000000000000000002 0101 020000000001");
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.of(kind, arena, ns);
                assertThat(Icmp.type(s, 0)).isEqualTo(Ndp.NEIGHBOR_SOLICITATION);
                assertThat(Ndp.targetHi(s, 0)).isEqualTo(0xfd00_0000_0000_0000L);
                assertThat(Ndp.targetLo(s, 0)).isEqualTo(2);
                long opt = Ndp.findOption(s, Ndp.NEIGHBOR_LENGTH, ns.length - Ndp.NEIGHBOR_LENGTH, Ndp.OPT_SOURCE_LINK_ADDRESS);
                assertThat(opt).isEqualTo(Ndp.NEIGHBOR_LENGTH);
                assertThat(Ndp.linkAddress(s, opt)).isEqualTo(GUEST_MAC);
                assertThat(Ndp.findOption(s, Ndp.NEIGHBOR_LENGTH, ns.length - Ndp.NEIGHBOR_LENGTH, Ndp.OPT_MTU)).isEqualTo(-1);
            }
        }
    }

    @Test
    void malformedOptionsAreReported() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment zeroLength = Segs.of(Kind.NATIVE, arena, Segs.hex("0100 020000000001"));
            assertThat(Ndp.check(zeroLength, 0, 8, 0)).isEqualTo(Drop.BAD_OPTION);
            MemorySegment pastEnd = Segs.of(Kind.NATIVE, arena, Segs.hex("0102 020000000001"));
            assertThat(Ndp.check(pastEnd, 0, 8, 0)).isEqualTo(Drop.BAD_OPTION);
            MemorySegment halfOption = Segs.of(Kind.NATIVE, arena, Segs.hex("0101 020000000001 05"));
            assertThat(Ndp.check(halfOption, 0, 9, 0)).isEqualTo(Drop.BAD_OPTION);
            assertThat(Ndp.check(halfOption, 0, 8, 0)).isNull();
            assertThat(Ndp.findOption(halfOption, 0, 0, 5)).isEqualTo(-1);
            assertThat(Ndp.check(halfOption, 0, 4, 8)).as("shorter than the message").isEqualTo(Drop.TRUNCATED);
        }
    }

    @Test
    void writesANeighborAdvertisement() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(Ndp.NEIGHBOR_ADVERTISEMENT_LENGTH);
            Ndp.writeNeighborAdvertisement(s, 0, Ndp.NA_ROUTER | Ndp.NA_SOLICITED | Ndp.NA_OVERRIDE, 0xfd00_0000_0000_0000L, 2, ROUTER_MAC);
            assertThat(Segs.bytes(s)).isEqualTo(Segs.hex("8800 0000 e0000000 fd000000000000000000000000000002 0201 52550a000202"));
        }
    }

    @Test
    void writesARouterAdvertisementWithPrefixMtuAndDnsServer() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(Ndp.ROUTER_ADVERTISEMENT_LENGTH);
            Ndp.write(s, 0, new Ndp.Advertisement().router(64, Ndp.RA_OTHER, 1800).link(ROUTER_MAC, 1500)
                    .prefix(0xfd00_0000_0000_0000L, 64, 86400, 14400).dns(0xfd00_0000_0000_0000L, 3, 1800));
            assertThat(Segs.bytes(s)).isEqualTo(Segs.hex(
                    "8600 0000 40 40 0708 00000000 00000000"                                // hop limit 64, O, lifetime 1800
                    + "0101 52550a000202"                                                    // source link-layer address
                    + "0501 0000 000005dc"                                                   // MTU 1500
                    + "0304 40 c0 00015180 00003840 00000000 fd000000000000000000000000000000" // fd00::/64, L and A
                    + "1903 0000 00000708 fd000000000000000000000000000003"));              // RDNSS fd00::3
            int opts = Ndp.routerAdvertisementOptions();
            int optsLen = Ndp.ROUTER_ADVERTISEMENT_LENGTH - opts;
            assertThat(Ndp.raFlags(s, 0) & Ndp.RA_OTHER).isNotZero();
            assertThat(Ndp.raFlags(s, 0) & Ndp.RA_MANAGED).isZero();
            assertThat(Ndp.routerLifetime(s, 0)).isEqualTo(1800);
            long prefix = Ndp.findOption(s, opts, optsLen, Ndp.OPT_PREFIX_INFORMATION);
            assertThat(Ndp.prefixHi(s, prefix)).isEqualTo(0xfd00_0000_0000_0000L);
            assertThat(Ndp.prefixLength(s, prefix)).isEqualTo(64);
            assertThat(Ndp.prefixAutonomous(s, prefix)).isTrue();
            assertThat(Ndp.mtu(s, Ndp.findOption(s, opts, optsLen, Ndp.OPT_MTU))).isEqualTo(1500);
            long rdnss = Ndp.findOption(s, opts, optsLen, Ndp.OPT_RDNSS);
            assertThat(Ndp.rdnssHi(s, rdnss)).isEqualTo(0xfd00_0000_0000_0000L);
            assertThat(Ndp.rdnssLo(s, rdnss)).isEqualTo(3);
            assertThat(Ndp.rdnssLifetime(s, rdnss)).isEqualTo(1800);
            assertThat(Ndp.linkAddress(s, Ndp.findOption(s, opts, optsLen, Ndp.OPT_SOURCE_LINK_ADDRESS))).isEqualTo(ROUTER_MAC);
        }
    }
}
