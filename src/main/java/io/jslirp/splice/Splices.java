package io.jslirp.splice;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.loop.Reactor;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Pipes;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.util.Log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The spliced TCP connections of one loop, and what they share: each joins a client accepted in
 * one network namespace to a socket connected in another (or the same), the bytes moved by
 * splice(2) through a pipe per direction, as pasta's loopback path does, so they never reach
 * user space. Memory per connection is bounded by the two pipes' capacity. Each connection, and
 * each UDP splice's flow, is a flow of the instance's one table. Also the one datagram buffer of
 * the loop's UDP splices.
 */
public final class Splices implements AutoCloseable {
    /** The largest pipe tried, as pasta: 8 MiB (root may set it; an ordinary user gets fs.pipe-max-size, 1 MiB by default). */
    public static final int MAX_PIPE_SIZE = 8 << 20;
    /** Pipes a probe sets at once: the per-user limit on pipe memory (fs.pipe-user-pages-soft) counts them all, as pasta's pool. */
    static final int PROBE_PIPES = 32;
    /** The kernel's own size, which a pipe keeps where no larger one is allowed. */
    static final int KERNEL_PIPE_SIZE = 64 << 10;

    final Reactor loop;
    final int pipeSize;
    /** The instance's table, where the connections and the UDP flows are. */
    final Flows flows;
    private final Arena arena = Arena.ofShared();
    /** One datagram at a time, for every UDP splice of the loop. */
    final MemorySegment datagram = arena.allocate(65536, 8);
    /**
     * Counters: connections spliced, refused by the target (or failed to start), ended by a reset,
     * handed back for want of descriptors; bytes each way.
     */
    long spliced, refused, resets, declined, toTarget, toClient;
    /** Datagrams and bytes the UDP splices carried, and datagrams dropped (no flow left, a send failed). */
    long datagrams, datagramBytes, datagramDrops;
    private boolean warnedPipes;

    /** Pipes of the largest size this process may give them ({@link #probePipeSize}). */
    public Splices(Reactor loop, Flows flows) {
        this(loop, flows, probePipeSize());
    }

    /**
     * The size pipes get, probed as pasta does: from {@link #MAX_PIPE_SIZE} down by halves, the
     * first size that {@link #PROBE_PIPES} pipes all take (F_SETPIPE_SZ refuses an ordinary user
     * more than fs.pipe-max-size, and more pipe memory than fs.pipe-user-pages-soft in all);
     * {@link #KERNEL_PIPE_SIZE} where none does.
     */
    public static int probePipeSize() {
        for (int size = MAX_PIPE_SIZE; size > KERNEL_PIPE_SIZE; size /= 2) {
            long[] pipes = new long[PROBE_PIPES];
            int taken = 0;
            boolean all = true;
            for (; taken < PROBE_PIPES; taken++) {
                long p = Pipes.pipe();
                if (p < 0) {
                    all = false;
                    break;
                }
                pipes[taken] = p;
                if (Pipes.setSize(Pipes.writeEnd(p), size) < 0) {
                    all = false;
                    taken++;
                    break;
                }
            }
            for (int i = 0; i < taken; i++) closePipe(pipes[i]);
            if (all) return size;
        }
        return KERNEL_PIPE_SIZE;
    }

    /** Pipes of pipeSize bytes each way (the kernel's 64 KiB where it refuses more). */
    public Splices(Reactor loop, Flows flows, int pipeSize) {
        this.loop = loop;
        this.flows = flows;
        this.pipeSize = pipeSize;
    }

    /**
     * Splices client (a connected socket, now this object's, whose peer is peer: address hi, lo and
     * port) to a new connection toward target, the new socket bound to the peer's address (port 0)
     * first when keepAddress; true. If no connection can be started, the client is reset; except,
     * when declinable, for want of descriptors (a splice takes five: a socket and two pipes; EMFILE,
     * ENFILE): then false, and the client is still the caller's, for a path that needs none more
     * (the tap: a burst of thousands of loopback clients at once reached the descriptor limit).
     */
    public boolean splice(HostSockets clientSockets, int client, long[] peer, Endpoint target, boolean keepAddress, boolean declinable) {
        long bindHi = keepAddress ? peer[0] : 0, bindLo = keepAddress ? peer[1] : 0;
        HostSockets ts = target.sockets();
        int t = ts.tcp(target.ipv6());
        if (t < 0) {
            return !declined(declinable, -t) && fail(clientSockets, client, "socket", -t);
        }
        if ((bindHi != 0 || bindLo != 0) && Endpoint.isMapped(bindHi, bindLo) != target.ipv6()) {
            ts.bind(t, bindHi, bindLo, 0); // the client's loopback address where it can be kept; the kernel's choice else
        }
        long a = Pipes.pipe(), b = a < 0 ? 0 : Pipes.pipe();
        if (a < 0 || b < 0) {
            if (a >= 0) closePipe(a);
            ts.close(t);
            int errno = (int) -(a < 0 ? a : b);
            return !declined(declinable, errno) && fail(clientSockets, client, "pipe2", errno);
        }
        sizePipe(a);
        sizePipe(b);
        clientSockets.setInt(client, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        ts.setInt(t, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        int r = ts.connect(t, target.hi(), target.lo(), target.port());
        if (r < 0 && r != -Errno.EINPROGRESS) {
            closePipe(a);
            closePipe(b);
            ts.close(t);
            return fail(clientSockets, client, "connect " + target, -r);
        }
        spliced++;
        AddressBook book = flows.addresses();
        int from = book.acquire(peer[0], peer[1]), to = book.acquire(target.hi(), target.lo());
        SpliceConnection c = new SpliceConnection(this, new SpliceConnection.Side(clientSockets, client, a, from, (int) peer[2]),
                new SpliceConnection.Side(ts, t, b, to, target.port()), r < 0);
        flows.add(c, r < 0 ? State.OPENING : State.OPEN, loop.clock().now());
        book.release(from); // the table holds them now
        book.release(to);
        return true;
    }

    /** Whether a splice that failed with errno is declined (see {@link #splice}): counted, and false for the caller. */
    private boolean declined(boolean declinable, int errno) {
        if (!declinable || !Errno.isDescriptorLimit(errno)) return false;
        if (declined++ == 0) Log.warn("splice: no descriptor left for a splice (" + Errno.describe(errno) + "): loopback clients go through the tap");
        return true;
    }

    private void sizePipe(long pipe) {
        int r = Pipes.setSize(Pipes.writeEnd(pipe), pipeSize);
        if (r < 0 && !warnedPipes) {
            warnedPipes = true;
            Log.debug(() -> "splice: pipes stay at the kernel's size: " + Errno.describe(-r));
        }
    }

    static void closePipe(long pipe) {
        io.jslirp.sys.Libc.close(Pipes.readEnd(pipe));
        io.jslirp.sys.Libc.close(Pipes.writeEnd(pipe));
    }

    /** Resets client, a splice to it having failed at what with errno; true (the client was taken). */
    private boolean fail(HostSockets sockets, int client, String what, int errno) {
        refused++;
        Log.debug(() -> "splice: " + what + ": " + Errno.describe(errno));
        sockets.setLingerZero(client);
        sockets.close(client);
        return true;
    }

    /** A connection ended: forget it. */
    void closed(SpliceConnection c, boolean reset) {
        flows.transition(c, State.CLOSED);
        if (reset) resets++;
    }

    /** Spliced connections open now. */
    public int size() {
        return flows.size(Kind.TCP_SPLICE);
    }

    public long spliced() {
        return spliced;
    }

    public long refused() {
        return refused;
    }

    public long resets() {
        return resets;
    }

    /** Loopback clients handed back for want of descriptors (they went through the tap). */
    public long declined() {
        return declined;
    }

    /** Bytes moved from clients to their targets, and back. */
    public long toTarget() {
        return toTarget;
    }

    public long toClient() {
        return toClient;
    }

    public long datagrams() {
        return datagrams;
    }

    public long datagramDrops() {
        return datagramDrops;
    }

    /** One line for the status report or a log. */
    public String summary() {
        return "splice: " + size() + " open, " + spliced + " spliced, " + refused + " refused, " + resets + " reset, " + declined
                + " through the tap for want of descriptors, " + toTarget + " bytes to targets, " + toClient + " to clients; udp " + datagrams + " datagrams, "
                + datagramDrops + " dropped";
    }

    /** Closes every connection (resetting both ends). */
    @Override
    public void close() {
        for (Flow f : flows.all(Kind.TCP_SPLICE)) {
            SpliceConnection c = (SpliceConnection) f;
            c.abort();
            flows.transition(c, State.CLOSED);
        }
        arena.close();
    }
}
