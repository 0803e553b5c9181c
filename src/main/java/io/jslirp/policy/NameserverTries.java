package io.jslirp.policy;


/**
 * One query's or TCP connection's way through the nameservers: the preferred one (the one that
 * answered last) first, then the others in resolv.conf's order, each once.
 */
public final class NameserverTries {
    private final Nameservers dns;
    private int first, tried, current;

    public NameserverTries(Nameservers dns) {
        this.dns = dns;
        restart();
    }

    /** Starts over from the now preferred nameserver (a reused query). */
    public void restart() {
        first = dns.preferred();
        tried = 0;
    }

    /** The next nameserver to try, or null when every one has been tried. */
    public Nameserver next() {
        if (exhausted()) return null;
        current = (first + tried++) % dns.count();
        return dns.get(current);
    }

    public boolean exhausted() {
        return tried >= dns.count();
    }

    /** Whether the current nameserver is not the first one tried. */
    public boolean retrying() {
        return tried > 1;
    }

    public Nameserver current() {
        return dns.get(current);
    }

    /** The current nameserver answered: it is asked first from now on. */
    public void answered() {
        dns.answeredBy(current);
    }
}
