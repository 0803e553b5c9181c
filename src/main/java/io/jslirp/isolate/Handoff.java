package io.jslirp.isolate;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the confined program is handed: named groups of descriptors, in one environment variable
 * ({@link #VARIABLE}), e.g. {@code tap=5,6,7;api=9,10}. Its presence is what tells the program it
 * runs confined and must not set anything up.
 */
public record Handoff(Map<String, int[]> descriptors) {
    public static final String VARIABLE = "JSLIRP_SANDBOXED";

    public Handoff {
        descriptors = Map.copyOf(descriptors);
    }

    /**
     * The handoff in this process's environment, or null when it was not started confined. The
     * variable in a process that is not (one that still sees /proc, which the sandbox's root has
     * not) is refused: its descriptors are not what it says.
     */
    public static Handoff inherited() {
        String value = System.getenv(VARIABLE);
        if (value == null) return null;
        if (java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self"))) {
            throw new IllegalArgumentException(VARIABLE + " is set, but this process is not in jslirp's sandbox"
                    + " (the variable is jslirp's own, for the program it starts there)");
        }
        return parse(value);
    }

    /** The descriptors of name, or an empty array. */
    public int[] get(String name) {
        int[] fds = descriptors.get(name);
        return fds == null ? new int[0] : fds.clone();
    }

    /** Every descriptor handed over. */
    public int[] all() {
        return descriptors.values().stream().flatMapToInt(Arrays::stream).toArray();
    }

    /** The variable's value. */
    public String encode() {
        StringBuilder s = new StringBuilder();
        descriptors.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            if (!s.isEmpty()) s.append(';');
            s.append(e.getKey()).append('=');
            int[] fds = e.getValue();
            for (int i = 0; i < fds.length; i++) s.append(i == 0 ? "" : ",").append(fds[i]);
        });
        return s.toString();
    }

    /** Reads a value made by {@link #encode}; throws IllegalArgumentException for anything else. */
    public static Handoff parse(String value) {
        Map<String, int[]> map = new LinkedHashMap<>();
        if (value.isEmpty()) return new Handoff(map);
        for (String group : value.split(";", -1)) {
            int eq = group.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException(VARIABLE + " is not name=fd,...;...: " + value);
            String name = group.substring(0, eq);
            String[] parts = group.substring(eq + 1).split(",", -1);
            int[] fds = new int[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    fds[i] = Integer.parseInt(parts[i]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(VARIABLE + " names a descriptor that is not a number: " + value);
                }
                if (fds[i] < 0) throw new IllegalArgumentException(VARIABLE + " names a negative descriptor: " + value);
            }
            if (map.put(name, fds) != null) throw new IllegalArgumentException(VARIABLE + " names " + name + " twice: " + value);
        }
        return new Handoff(map);
    }
}
