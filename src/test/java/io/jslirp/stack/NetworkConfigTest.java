package io.jslirp.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.wire.Ipv4;
import org.junit.jupiter.api.Test;

/** --cidr as slirp4netns takes it, refused in slirp4netns's words (its test scripts match them). */
class NetworkConfigTest {
    @Test
    void aNetworkGivesTheVirtualHostsTheirOffsets() {
        NetworkConfig c = NetworkConfig.fromCidr("10.0.135.128/25", 1500, true);
        assertThat(Ipv4.format(c.network())).isEqualTo("10.0.135.128");
        assertThat(Ipv4.format(c.gateway())).isEqualTo("10.0.135.130");
        assertThat(Ipv4.format(c.dns())).isEqualTo("10.0.135.131");
        assertThat(Ipv4.format(c.dhcpStart())).isEqualTo("10.0.135.143");
        assertThat(Ipv4.format(c.guest())).isEqualTo("10.0.135.228");
        assertThat(c.prefixLength()).isEqualTo(25);
    }

    @Test
    void malformedCidrsAreInvalid() {
        for (String bad : new String[] {"24", "foo", "10.0.2.0", "10.0.2.0/", "10.0.2/24", "10.0.2.0/024", " 10.0.2.0/24", "10.0.2.0/24x"}) {
            assertThatThrownBy(() -> NetworkConfig.fromCidr(bad, 1500, true)).as(bad).hasMessageStartingWith("invalid CIDR: " + bad);
        }
        assertThatThrownBy(() -> NetworkConfig.fromCidr("10.0.2.300/24", 1500, true))
                .hasMessageStartingWith("invalid network address: 10.0.2.300");
    }

    @Test
    void aHostAddressIsNotANetwork() {
        assertThatThrownBy(() -> NetworkConfig.fromCidr("10.0.2.100/24", 1500, true))
                .hasMessageStartingWith("CIDR needs to be a network address like 10.0.2.0/24, not like 10.0.2.100/24");
    }

    @Test
    void thePrefixMustLeaveRoomForTheGuest() {
        assertThatThrownBy(() -> NetworkConfig.fromCidr("10.0.2.100/26", 1500, true)).hasMessageStartingWith("prefix length needs to be 1-25");
        assertThatThrownBy(() -> NetworkConfig.fromCidr("0.0.0.0/0", 1500, true)).hasMessageStartingWith("prefix length needs to be 1-25");
        assertThat(NetworkConfig.fromCidr("10.0.0.0/8", 1500, true).prefixLength()).isEqualTo(8);
    }
}
