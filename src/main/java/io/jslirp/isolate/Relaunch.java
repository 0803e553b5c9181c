package io.jslirp.isolate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The confined program's command line and environment: this JVM's own (as /proc/self/cmdline has
 * it), started from the new root's JDK, with the jar and the AOT cache at their new paths.
 */
public record Relaunch(List<String> argv, List<String> env) {
    static final String AOT_CACHE = "-XX:AOTCache=";

    /**
     * From cmdline (the JVM's arguments, the launcher's {@code java [OPTION]... -jar JAR ARG...}),
     * layout, the handoff and the current environment. Throws IllegalArgumentException when the
     * command line has no {@code -jar} (the JVM was not started by the jslirp launcher).
     */
    public static Relaunch of(List<String> cmdline, RootLayout layout, Handoff handoff, Map<String, String> environment) {
        jar(cmdline);
        int jar = cmdline.indexOf("-jar");
        List<String> argv = new ArrayList<>();
        argv.add(layout.java());
        for (String option : cmdline.subList(1, jar)) {
            if (option.startsWith(AOT_CACHE)) {
                if (layout.aotCache() != null) argv.add(AOT_CACHE + layout.aotCache());
            } else {
                argv.add(option);
            }
        }
        argv.add("-jar");
        argv.add(layout.jar());
        argv.addAll(cmdline.subList(jar + 2, cmdline.size()));

        Map<String, String> env = new TreeMap<>(environment);
        // The launcher (bin/java) finds libjli.so through $ORIGIN, which the dynamic loader resolves
        // with /proc/self/exe: there is no /proc in the new root.
        env.put("LD_LIBRARY_PATH", layout.javaLibraries());
        env.put(Handoff.VARIABLE, handoff.encode());
        List<String> pairs = new ArrayList<>();
        env.forEach((k, v) -> pairs.add(k + "=" + v));
        return new Relaunch(List.copyOf(argv), List.copyOf(pairs));
    }

    /** The AOT cache the JVM was started with (the value of -XX:AOTCache before -jar), or null. */
    public static String aotCache(List<String> cmdline) {
        int end = cmdline.indexOf("-jar");
        for (String option : cmdline.subList(0, end < 0 ? cmdline.size() : end)) {
            if (option.startsWith(AOT_CACHE)) return option.substring(AOT_CACHE.length());
        }
        return null;
    }

    /**
     * The jar the JVM was started with (after -jar); throws IllegalArgumentException when there is
     * none (the JVM was not started by the jslirp launcher).
     */
    public static String jar(List<String> cmdline) {
        int i = cmdline.indexOf("-jar");
        if (i < 1 || i + 1 >= cmdline.size()) {
            throw new IllegalArgumentException("--enable-sandbox needs jslirp's launcher (java ... -jar jslirp.jar): this JVM was started as "
                    + String.join(" ", cmdline));
        }
        return cmdline.get(i + 1);
    }
}
