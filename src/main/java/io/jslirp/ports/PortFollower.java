package io.jslirp.ports;

import io.jslirp.sys.SysException;
import io.jslirp.util.Log;

import java.util.BitSet;

/**
 * The forwarded ports of one "auto" option, following a scan: given the ports wanted now, it opens
 * what is new and closes what is gone, through its {@link Opener}. A port that cannot be opened
 * (taken on this side) is tried again at the next scan, warned about once.
 */
public final class PortFollower implements AutoCloseable {
    /** Opens the forward of one port; throws (a {@link SysException}, an IllegalArgumentException) when it cannot. */
    @FunctionalInterface
    public interface Opener {
        AutoCloseable open(int port);
    }

    private final String name;
    private final Opener opener;
    private final AutoCloseable[] open = new AutoCloseable[65536];
    private final BitSet current = new BitSet(65536), failed = new BitSet(65536);

    /** name: the option, for messages ("-t auto"). */
    public PortFollower(String name, Opener opener) {
        this.name = name;
        this.opener = opener;
    }

    /** Makes the forwarded ports those of wanted. */
    public void follow(BitSet wanted) {
        for (int p = current.nextSetBit(0); p >= 0; p = current.nextSetBit(p + 1)) {
            if (!wanted.get(p)) closePort(p);
        }
        for (int p = wanted.nextSetBit(0); p >= 0 && p < 65536; p = wanted.nextSetBit(p + 1)) {
            if (current.get(p) || p == 0) continue;
            try {
                open[p] = opener.open(p);
                current.set(p);
                failed.clear(p);
            } catch (RuntimeException e) { // SysException, or a forward's IllegalArgumentException
                if (!failed.get(p)) Log.warn(name + ": cannot forward port " + p + ": " + e.getMessage());
                failed.set(p);
            }
        }
        failed.and(wanted);
    }

    /** The ports forwarded now (a copy). */
    public BitSet ports() {
        return (BitSet) current.clone();
    }

    /** The ports forwarded now, not to be changed. */
    BitSet view() {
        return current;
    }

    private void closePort(int p) {
        try {
            open[p].close();
        } catch (Exception e) {
            Log.warn(name + ": closing port " + p + ": " + e);
        }
        open[p] = null;
        current.clear(p);
    }

    @Override
    public void close() {
        for (int p = current.nextSetBit(0); p >= 0; p = current.nextSetBit(p + 1)) closePort(p);
    }
}
