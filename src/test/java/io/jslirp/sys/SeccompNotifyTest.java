package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the C library's code is, from a maps file: the bypass's filter lets that code's connects go. */
class SeccompNotifyTest {
    @Test
    void theCLibrarysExecutableMappingIsFound() {
        List<String> maps = List.of(
                "7f0a10000000-7f0a10028000 r--p 00000000 fe:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7f0a10028000-7f0a1019d000 r-xp 00028000 fe:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7f0a1019d000-7f0a101f5000 r--p 0019d000 fe:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7f0a20000000-7f0a20100000 r-xp 00000000 fe:01 99     /usr/lib/x86_64-linux-gnu/libcap.so.2",
                "7f0a30000000-7f0a30001000 r-xp 00000000 00:00 0 ");
        assertThat(SeccompNotify.libcCode(maps)).containsExactly(0x7f0a10028000L, 0x7f0a1019d000L);
        assertThat(SeccompNotify.libcCode(List.of("ffff8000-ffff9000 r-xp 0 0:0 1 /lib/libc-2.31.so"))).containsExactly(0xffff8000L, 0xffff9000L);
        assertThatThrownBy(() -> SeccompNotify.libcCode(List.of(maps.get(3)))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void thisProcessHasOneAndTheFilterCanBeBuiltForIt() {
        long[] code = SeccompNotify.libcCode();
        assertThat(code[1]).isGreaterThan(code[0]);
        assertThat(Seccomp.connectProgram(Native.X86_64, code[0], code[1])).isNotEmpty();
    }
}
