package io.jslirp.virtio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.virtio.RegionTable.Region;
import java.lang.foreign.Arena;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegionTableTest {
    private static final Region LOW = new Region(0, 0xa_0000, 0x7f00_0000_0000L);
    private static final Region HIGH = new Region(0x10_0000, 0x100_0000, 0x7f00_0010_0000L);

    @Test
    void findsTheRegionOfAnAddressAndTranslatesUserAddresses() {
        RegionTable t = RegionTable.of(List.of(LOW, HIGH));
        assertThat(t.find(0)).isEqualTo(0);
        assertThat(t.find(0x9_ffff)).isEqualTo(0);
        assertThat(t.find(0xa_0000)).as("the hole between").isEqualTo(-1);
        assertThat(t.find(0x10_0000)).isEqualTo(1);
        assertThat(t.find(0x110_0000)).isEqualTo(-1);
        assertThat(t.find(-1)).isEqualTo(-1);
        assertThat(t.findWhole(0x9_fff0, 16)).isEqualTo(0);
        assertThat(t.findWhole(0x9_fff0, 17)).isEqualTo(-1);
        assertThat(t.findWhole(0x9_fff0, 0)).isEqualTo(-1);
        assertThat(t.userToGuest(0x7f00_0010_0040L, 64)).isEqualTo(0x10_0040);
        assertThat(t.userToGuest(0x7f00_0000_0000L + 0xa_0000 - 8, 16)).as("runs past the region").isEqualTo(-1);
        assertThat(t.userToGuest(0x1000, 16)).isEqualTo(-1);
    }

    @Test
    void refusesOverlapsEmptyRegionsAndWrapAround() {
        assertThat(RegionTable.check(List.of(LOW, HIGH))).isNull();
        assertThat(RegionTable.check(List.of(LOW, new Region(0x9_0000, 0x2_0000, 0x7f10_0000_0000L)))).contains("overlap in guest addresses");
        assertThat(RegionTable.check(List.of(LOW, new Region(0x20_0000, 0x1000, 0x7f00_0000_1000L)))).contains("overlap in user addresses");
        assertThat(RegionTable.check(List.of(new Region(0, 0, 0)))).contains("empty");
        assertThat(RegionTable.check(List.of(new Region(Long.MAX_VALUE - 10, 100, 0)))).contains("past the end");
        assertThat(RegionTable.check(List.of(new Region(-4096, 100, 0)))).contains("past the end");
        assertThatThrownBy(() -> RegionTable.of(List.of(LOW, LOW))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void guestMemoryWantsOneSegmentOfTheRightSizePerRegion() {
        try (Arena arena = Arena.ofConfined()) {
            RegionTable t = RegionTable.of(List.of(new Region(0x1000, 64, 0x9000)));
            assertThatThrownBy(() -> new GuestMemory(t, arena.allocate(32))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new GuestMemory(t)).isInstanceOf(IllegalArgumentException.class);
            GuestMemory m = new GuestMemory(t, arena.allocate(64));
            assertThat(m.slice(0x1010, 48).byteSize()).isEqualTo(48);
            assertThat(m.slice(0x1010, 49)).isNull();
        }
    }
}
