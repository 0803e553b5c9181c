package io.jslirp.splice;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Pipes;
import io.jslirp.sys.Sockets;

/**
 * One spliced TCP connection, a flow of the table: side 0 the accepted client, side 1 the socket
 * connected to the target (its guest side in the table: the client's end and the target's). Each direction has a pipe: bytes read from a side go into its pipe with splice(2), and
 * from the pipe to the other side; while the other side cannot take them, the reading side is not
 * read (its pipe is the bound on what waits). An end of stream read from a side, once its pipe has
 * drained, becomes a shutdown of the other side's writing (half-close); when both have been passed
 * on the connection closes. An error on either side (a reset, a refused connect) resets the other
 * (SO_LINGER 0, then close). Level-triggered readiness, a bounded number of rounds per event.
 */
final class SpliceConnection extends Flow {
    private static final int ROUNDS = 8;
    private static final int FLAGS = Pipes.SPLICE_F_MOVE | Pipes.SPLICE_F_NONBLOCK;

    private final Splices owner;
    private final HostSockets[] sockets = new HostSockets[2];
    private final int[] fd = new int[2];
    /** The pipe of each direction, carrying what side i sent. */
    private final long[] pipe = new long[2];
    /** Bytes in side i's pipe. */
    private final long[] pending = new long[2];
    /** Side i sent its end of stream; its pipe's bytes are the last. */
    private final boolean[] eof = new boolean[2];
    /** Side i was told the end of stream (shutdown SHUT_WR). */
    private final boolean[] finSent = new boolean[2];
    /** Side i could not take more: wait for its EPOLLOUT. */
    private final boolean[] outWait = new boolean[2];
    /** Still watched by the loop; the events asked for now. */
    private final boolean[] watched = new boolean[2];
    private final int[] interest = new int[2];
    private boolean connecting, closed;

    /**
     * One side of a splice: its socket (of sockets), the pipe that carries what it sends, and
     * where it is (an address handle the caller holds during the constructor, and a port).
     */
    record Side(HostSockets sockets, int fd, long pipe, int address, int port) {}

    /** A connection between client and target (still connecting when connecting), watched by owner's loop. */
    SpliceConnection(Splices owner, Side client, Side target, boolean connecting) {
        super(Kind.TCP_SPLICE, true, client.address(), client.port(), target.address(), target.port());
        this.owner = owner;
        this.hostAddress = target.address();
        this.hostPort = target.port();
        sockets[0] = client.sockets();
        sockets[1] = target.sockets();
        fd[0] = client.fd();
        fd[1] = target.fd();
        pipe[0] = client.pipe();
        pipe[1] = target.pipe();
        this.connecting = connecting;
        interest[0] = wanted(0);
        interest[1] = wanted(1);
        owner.loop.register(fd[0], interest[0], events -> onEvents(0, events));
        watched[0] = true;
        owner.loop.register(fd[1], interest[1], events -> onEvents(1, events));
        watched[1] = true;
    }

    /** The events side i is to be watched for now (errors and hang-ups come unasked). */
    private int wanted(int side) {
        if (connecting) return side == 1 ? Epoll.OUT : 0;
        int e = 0;
        if (!eof[side] && !outWait[1 - side]) e |= Epoll.IN;
        if (outWait[side]) e |= Epoll.OUT;
        return e;
    }

    private void onEvents(int side, int events) {
        if (closed) return;
        if (connecting) {
            int error = (events & (Epoll.ERR | Epoll.HUP)) != 0 ? sockets[1].soError(fd[1]) : 0;
            if ((events & (Epoll.ERR | Epoll.HUP)) != 0 && error == 0) error = Errno.ECONNREFUSED;
            if (error != 0) {
                owner.refused++;
                owner.spliced--;
                reset();
                return;
            }
            if ((events & Epoll.OUT) == 0) return;
            connecting = false;
            owner.flows.transition(this, State.OPEN);
            update();
            return;
        }
        if ((events & Epoll.ERR) != 0) {
            reset();
            return;
        }
        if ((events & Epoll.OUT) != 0) {
            outWait[side] = false;
            if (!pump(1 - side)) return;
        }
        if ((events & (Epoll.IN | Epoll.HUP | Epoll.RDHUP)) != 0 && !eof[side]) {
            if (!pump(side)) return;
        }
        if (finSent[0] && finSent[1]) {
            close(false);
            return;
        }
        update();
    }

    /**
     * Moves what side from sent toward the other side: false if that ended the connection (an
     * error reset it).
     */
    private boolean pump(int from) {
        int to = 1 - from;
        int readEnd = Pipes.readEnd(pipe[from]), writeEnd = Pipes.writeEnd(pipe[from]);
        for (int round = 0; round < ROUNDS; round++) {
            long read = 0;
            if (!eof[from] && !outWait[to]) {
                read = Pipes.splice(fd[from], writeEnd, owner.pipeSize, FLAGS);
                if (read == 0) {
                    eof[from] = true;
                } else if (read > 0) {
                    pending[from] += read;
                } else if (read == -Errno.EINTR) {
                    continue;
                } else if (read != -Errno.EAGAIN) {
                    reset();
                    return false;
                }
            }
            if (pending[from] > 0) {
                int more = read >= owner.pipeSize * 9L / 10 ? Pipes.SPLICE_F_MORE : 0;
                long written = Pipes.splice(readEnd, fd[to], pending[from], FLAGS | more);
                if (written > 0) {
                    pending[from] -= written;
                    if (from == 0) {
                        owner.toTarget += written;
                        fromGuest += written;
                    } else {
                        owner.toClient += written;
                        toGuest += written;
                    }
                    owner.loop.moved((int) Math.min(Integer.MAX_VALUE, written));
                } else if (written == -Errno.EAGAIN) {
                    outWait[to] = true;
                    break;
                } else if (written != -Errno.EINTR) {
                    reset();
                    return false;
                }
            }
            if (read <= 0 && pending[from] == 0) break;
        }
        if (eof[from] && pending[from] == 0 && !finSent[to]) {
            sockets[to].shutdown(fd[to], Sockets.SHUT_WR);
            finSent[to] = true;
        }
        return true;
    }

    /** Asks the loop for the events each side needs now; a side with nothing left to read or be told leaves the loop. */
    private void update() {
        for (int side = 0; side < 2; side++) {
            if (!watched[side]) continue;
            if (eof[side] && finSent[side]) {
                // Its hang-up would be reported at every wait: nothing more comes from or goes to it.
                owner.loop.unregister(fd[side]);
                watched[side] = false;
                continue;
            }
            int e = wanted(side);
            if (e != interest[side]) {
                owner.loop.modify(fd[side], e);
                interest[side] = e;
            }
        }
    }

    /** An error on one side: both are reset. */
    private void reset() {
        sockets[0].setLingerZero(fd[0]);
        sockets[1].setLingerZero(fd[1]);
        close(true);
    }

    /** Resets both ends (the loop is closing). */
    void abort() {
        if (closed) return;
        sockets[0].setLingerZero(fd[0]);
        sockets[1].setLingerZero(fd[1]);
        closeAll();
    }

    private void close(boolean reset) {
        closeAll();
        owner.closed(this, reset);
    }

    private void closeAll() {
        closed = true;
        for (int side = 0; side < 2; side++) {
            if (watched[side]) owner.loop.forget(fd[side]);
            watched[side] = false;
            sockets[side].close(fd[side]);
            Splices.closePipe(pipe[side]);
        }
    }
}
