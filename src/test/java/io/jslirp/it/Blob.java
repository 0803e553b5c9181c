package io.jslirp.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Deterministic pseudo-random content: byte i of blob (seed, size) depends only on seed and i
 * (splitmix64 of the 8-byte word index), so any chunking produces the same bytes and the same sha256.
 */
public final class Blob {
    public static final long MIB = 1024L * 1024;
    static final int CHUNK = 64 * 1024;

    private Blob() {}

    /** Fills buf[0..len) with the blob's bytes starting at offset (a multiple of 8). */
    static void fill(long seed, long offset, byte[] buf, int len) {
        if ((offset & 7) != 0) throw new IllegalArgumentException("offset must be a multiple of 8");
        long word = offset >>> 3;
        for (int i = 0; i < len; i += 8, word++) {
            long v = mix(seed + word * 0x9E3779B97F4A7C15L);
            int n = Math.min(8, len - i);
            for (int k = 0; k < n; k++) buf[i + k] = (byte) (v >>> (8 * k));
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public static void write(OutputStream out, long seed, long size) throws IOException {
        byte[] buf = new byte[CHUNK];
        for (long off = 0; off < size; off += CHUNK) {
            int n = (int) Math.min(CHUNK, size - off);
            fill(seed, off, buf, n);
            out.write(buf, 0, n);
        }
    }

    public static byte[] bytes(long seed, int size) {
        byte[] b = new byte[size];
        fill(seed, 0, b, size);
        return b;
    }

    public static void writeFile(Path file, long seed, long size) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            write(out, seed, size);
        }
    }

    public static String sha256(long seed, long size) {
        MessageDigest md = sha256();
        byte[] buf = new byte[CHUNK];
        for (long off = 0; off < size; off += CHUNK) {
            int n = (int) Math.min(CHUNK, size - off);
            fill(seed, off, buf, n);
            md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    public static String sha256(byte[] data) {
        return HexFormat.of().formatHex(sha256().digest(data));
    }

    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
