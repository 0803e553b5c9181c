package io.jslirp.vhostuser;

/**
 * A vhost-user message the backend will not take: malformed, unknown, out of order, or asking for
 * what was not offered. The front-end is untrusted input; the answer is an error line and that
 * connection closed, never a crash of the loop serving it.
 */
public final class ProtocolException extends Exception {
    public ProtocolException(String message) {
        super(message, null, false, false);
    }
}
