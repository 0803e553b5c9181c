package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrnoTest {
    @Test
    void describesWithTextAndName() {
        assertThat(Errno.describe(Errno.ECONNREFUSED)).isEqualTo("Connection refused (ECONNREFUSED)");
        assertThat(Errno.describe(Errno.EACCES)).isEqualTo("Permission denied (EACCES)");
        assertThat(Errno.describe(Errno.EAGAIN)).isEqualTo("Resource temporarily unavailable (EAGAIN)");
    }

    @Test
    void unknownErrnoIsStillDescribed() {
        assertThat(Errno.describe(99999)).contains("99999");
    }

    @Test
    void sysExceptionMessageAndErrno() {
        SysException e = new SysException("open /dev/net/tun", Errno.EACCES);
        assertThat(e.errno()).isEqualTo(Errno.EACCES);
        assertThat(e).hasMessage("open /dev/net/tun: Permission denied (EACCES)");
    }
}
