package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file mapped from an offset that is not page-aligned, and one too short for what is asked. */
class SharedMappingTest {
    @TempDir
    Path dir;

    @Test
    void mapsFromAnUnalignedOffsetAndWritesThrough() throws Exception {
        Path f = dir.resolve("mem");
        byte[] content = new byte[0x30000];
        for (int i = 0; i < content.length; i++) content[i] = (byte) (i * 7 + i / 251);
        Files.write(f, content);
        int fd = Libc.open(f.toString(), Libc.O_RDWR | Libc.O_CLOEXEC);
        try {
            SharedMapping m = SharedMapping.map(fd, 0x11234, 0x1000);
            assertThat(m.segment().byteSize()).isEqualTo(0x1000);
            for (int i = 0; i < 0x1000; i += 97) assertThat(m.segment().get(ValueLayout.JAVA_BYTE, i)).isEqualTo(content[0x11234 + i]);
            m.segment().set(ValueLayout.JAVA_BYTE, 5, (byte) 0x5a);
            m.unmap();
            assertThat(Files.readAllBytes(f)[0x11234 + 5]).as("shared: the file sees the write").isEqualTo((byte) 0x5a);
            assertThatThrownBy(() -> SharedMapping.map(fd, 0x2f000, 0x2000)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("of a file of " + 0x30000 + " bytes");
        } finally {
            Libc.close(fd);
        }
    }
}
