package io.jslirp.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Tftp;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which names the TFTP server serves: files under its directory, nothing outside it. */
class TftpFilesTest {
    @TempDir
    Path tmp;
    Path root;
    TftpFiles files;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("tftp"));
        Files.writeString(root.resolve("boot.img"), "hello");
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/inner"), "inner!");
        Files.writeString(tmp.resolve("secret"), "secret");
        Files.createDirectories(tmp.resolve("tftp2"));
        Files.writeString(tmp.resolve("tftp2/x"), "neighbour");
        Files.createSymbolicLink(root.resolve("out"), tmp.resolve("secret"));
        Files.createSymbolicLink(root.resolve("outdir"), tmp);
        Files.createSymbolicLink(root.resolve("in"), root.resolve("sub/inner"));
        files = new TftpFiles(root);
    }

    private long served(String name) throws Exception {
        TftpFiles.Opened o = files.open(name);
        assertThat(o.channel()).as("%s refused: %s", name, o.message()).isNotNull();
        o.channel().close();
        return o.size();
    }

    private int refused(String name) {
        TftpFiles.Opened o = files.open(name);
        assertThat(o.channel()).as(name).isNull();
        return o.error();
    }

    @Test
    void servesFilesUnderTheDirectory() throws Exception {
        assertThat(served("boot.img")).isEqualTo(5);
        assertThat(served("sub/inner")).isEqualTo(6);
        assertThat(served("/boot.img")).as("absolute names are relative to the directory, as in QEMU").isEqualTo(5);
        assertThat(served("in")).as("a link that stays inside").isEqualTo(6);
    }

    @Test
    void refusesEveryWayOut() {
        assertThat(refused("../secret")).isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused("sub/../../secret")).isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused("/../secret")).isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused("../tftp2/x")).isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused("out")).as("symlink to a file outside").isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused("outdir/secret")).as("symlink to a directory outside").isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused("sub")).as("a directory").isEqualTo(Tftp.ERR_ACCESS);
        assertThat(refused(tmp.resolve("secret").toString())).as("an absolute host path").isEqualTo(Tftp.ERR_NOT_FOUND);
    }

    @Test
    void missingFilesAreNotFound() {
        assertThat(refused("nothing")).isEqualTo(Tftp.ERR_NOT_FOUND);
        assertThat(refused("sub/nothing")).isEqualTo(Tftp.ERR_NOT_FOUND);
        assertThat(refused("/")).isEqualTo(Tftp.ERR_NOT_FOUND);
    }
}
