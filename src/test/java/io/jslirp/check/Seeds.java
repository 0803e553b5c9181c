package io.jslirp.check;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The seed corpora of the coverage-guided fuzz targets, where Jazzer's JUnit integration reads
 * them: {@code src/test/resources/<package>/<Class>Inputs/<method>/}. Each target's class
 * writes its own seeds from realistic inputs (frames and requests the other tests build) with a
 * test that runs only when {@code -Djslirp.fuzz.seeds.write=true}; the seeds are committed.
 */
public final class Seeds {
    private Seeds() {}

    /** The property that makes the seed-writing tests run. */
    public static final String WRITE = "jslirp.fuzz.seeds.write";

    /** Writes seeds (file name to bytes) as the corpus of test's fuzz target method, replacing the seeds it wrote before. */
    public static void write(Class<?> test, String method, Map<String, byte[]> seeds) {
        Path dir = Path.of("src/test/resources", test.getPackageName().replace('.', '/'), test.getSimpleName() + "Inputs", method);
        try {
            Files.createDirectories(dir);
            try (var old = Files.list(dir)) {
                for (Path p : old.toList()) if (p.getFileName().toString().startsWith("seed-")) Files.delete(p);
            }
            for (var e : seeds.entrySet()) Files.write(dir.resolve("seed-" + e.getKey()), e.getValue());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.printf("%s: %d seeds%n", dir, seeds.size());
    }

    /**
     * Records as one input: each record a 2-byte big-endian length and its bytes (frames, messages,
     * arguments), the form {@link #records} reads back.
     */
    public static byte[] records(List<byte[]> records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] r : records) {
            out.write(r.length >>> 8);
            out.write(r.length);
            out.write(r, 0, r.length);
        }
        return out.toByteArray();
    }

    /**
     * count inputs named prefix-1, prefix-2...: the bytes that replay the choices a scenario made
     * drawing from random generators seeded 1, 2... ({@link Choices#recording}).
     */
    public static Map<String, byte[]> recorded(String prefix, int count, java.util.function.Consumer<Choices> scenario) {
        Map<String, byte[]> out = new java.util.TreeMap<>();
        for (int seed = 1; seed <= count; seed++) {
            Choices.Recording choices = Choices.recording(new java.util.SplittableRandom(seed));
            scenario.accept(choices);
            out.put(prefix + "-" + seed, choices.bytes());
        }
        return out;
    }

    /** Command lines as inputs: each argument one record, in UTF-8. */
    public static Map<String, byte[]> commandLines(List<List<String>> lines) {
        Map<String, byte[]> out = new java.util.TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            out.put(String.format("line-%02d", i), records(lines.get(i).stream().map(a -> a.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toList()));
        }
        return out;
    }

    /** The arguments of an input made by {@link #commandLines}, or of any bytes. */
    public static List<String> arguments(byte[] data) {
        return records(data).stream().map(r -> new String(r, java.nio.charset.StandardCharsets.UTF_8)).toList();
    }

    /** The records of an input made by {@link #records(List)}; a cut last one is taken as it is. */
    public static List<byte[]> records(byte[] data) {
        List<byte[]> out = new java.util.ArrayList<>();
        for (int at = 0; at < data.length; ) {
            int len = at + 1 < data.length ? (data[at] & 0xff) << 8 | data[at + 1] & 0xff : 0;
            at = Math.min(at + 2, data.length);
            len = Math.min(len, data.length - at);
            out.add(java.util.Arrays.copyOfRange(data, at, at + len));
            at += len;
        }
        return out;
    }
}
