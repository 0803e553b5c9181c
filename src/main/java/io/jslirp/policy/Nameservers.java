package io.jslirp.policy;

import io.jslirp.util.Log;

import java.util.List;

/**
 * Where the guest's DNS goes: the nameservers of resolv.conf, asked in turn, the one that answered
 * last first. UDP queries ({@code service.DnsForwarder}) and TCP connections to the DNS address
 * ({@code nat.TcpFlow}) share the preference, each taking its own way through the list
 * ({@link NameserverTries}).
 */
public final class Nameservers {
    public static final int PORT = 53;
    /**
     * How long one nameserver may stay silent (a query unanswered, a connect in progress) before
     * the next is tried: short enough that the guest's resolver (5 s per try by default) still
     * gets the next nameserver's answer.
     */
    public static final long ATTEMPT_TIMEOUT_NANOS = 2_000_000_000L;

    private final List<Nameserver> list;
    /** Index of the nameserver asked first: the one that answered last. */
    private int preferred;

    public Nameservers(List<Nameserver> list) {
        this.list = List.copyOf(list);
    }

    public int count() {
        return list.size();
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    /** The index'th nameserver of resolv.conf. */
    Nameserver get(int index) {
        return list.get(index);
    }

    /** The index of the nameserver to ask first. */
    int preferred() {
        return preferred;
    }

    /** Remembers that the nameserver at index answered: it is asked first from now on. */
    void answeredBy(int index) {
        if (index != preferred) {
            Log.debug(() -> "dns: nameserver " + list.get(index) + " answers, asked first from now on");
            preferred = index;
        }
    }
}
