package io.jslirp.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** TFTP messages as a client puts them on the wire, for the tests of the codec and of the server. */
public final class TftpMessages {
    private TftpMessages() {}

    /** A message of opcode followed by NUL-terminated strings (a request: file name, mode, options). */
    public static byte[] of(int opcode, String... strings) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(opcode >> 8);
        b.write(opcode);
        for (String s : strings) {
            b.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
            b.write(0);
        }
        return b.toByteArray();
    }
}
