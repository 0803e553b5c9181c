package io.jslirp.cli;

/**
 * An error that ends a command with a status of its own rather than 1: e.g. 127 for a command that
 * cannot be found and 126 for one that cannot be executed, as shells and {@code unshare} exit.
 * The message is the one line printed after {@code jslirp: }.
 */
final class ExitStatus extends RuntimeException {
    private final int status;

    ExitStatus(String message, int status) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }
}
