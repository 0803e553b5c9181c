package io.jslirp.sys;

/** What the system calls' tests read of a {@link SysException}. */
final class SysExceptions {
    private SysExceptions() {}

    /** The message of the SysException r throws, or "no exception". */
    static String messageOf(Runnable r) {
        try {
            r.run();
            return "no exception";
        } catch (SysException e) {
            return e.getMessage();
        }
    }
}
