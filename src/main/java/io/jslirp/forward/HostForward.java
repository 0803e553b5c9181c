package io.jslirp.forward;

/** An open forwarded host port (a listening TCP socket or a bound UDP socket). */
public interface HostForward {
    PortForward forward();

    /** Stops taking new clients; TCP connections already made carry on (as with slirp4netns). */
    void close();
}
