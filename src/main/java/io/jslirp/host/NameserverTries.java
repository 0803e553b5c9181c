package io.jslirp.host;

/**
 * One query's or TCP connection's way through the nameservers: the preferred one (the one that
 * answered last) first, then the others in resolv.conf's order, each once.
 */
final class NameserverTries {
    private final DnsForwarder dns;
    private int first, tried, current;

    NameserverTries(DnsForwarder dns) {
        this.dns = dns;
        restart();
    }

    /** Starts over from the now preferred nameserver (a reused query). */
    void restart() {
        first = dns.preferred();
        tried = 0;
    }

    /** The next nameserver to try, or null when every one has been tried. */
    Nameserver next() {
        if (exhausted()) return null;
        current = (first + tried++) % dns.nameserverCount();
        return dns.nameserver(current);
    }

    boolean exhausted() {
        return tried >= dns.nameserverCount();
    }

    /** Whether the current nameserver is not the first one tried. */
    boolean retrying() {
        return tried > 1;
    }

    Nameserver current() {
        return dns.nameserver(current);
    }

    /** The current nameserver answered: it is asked first from now on. */
    void answered() {
        dns.answeredBy(current);
    }
}
