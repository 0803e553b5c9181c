package io.jslirp.sys;

import java.lang.foreign.MemorySegment;

/** {@link HostSockets} of the kernel: {@link Sockets} and {@link Libc}. */
class SystemSockets implements HostSockets {
    @Override
    public int tcp(boolean ipv6) {
        return ipv6 ? Sockets.tcp6() : Sockets.tcp4();
    }

    @Override
    public int udp(boolean ipv6) {
        return ipv6 ? Sockets.udp6() : Sockets.udp4();
    }

    @Override
    public int ping(boolean ipv6) {
        return ipv6 ? Sockets.ping6() : Sockets.ping4();
    }

    @Override
    public int connect(int fd, long hi, long lo, int scopeId, int port) {
        return Sockets.connect(fd, hi, lo, scopeId, port);
    }

    @Override
    public int bind(int fd, long hi, long lo, int port) {
        return Sockets.bind(fd, hi, lo, port);
    }

    @Override
    public int listen(int fd, int backlog) {
        return Sockets.listen(fd, backlog);
    }

    @Override
    public int accept(int fd, long[] peer) {
        return Sockets.accept(fd, peer);
    }

    @Override
    public int read(int fd, MemorySegment buf, long offset, int length) {
        return Libc.read(fd, buf, offset, length);
    }

    @Override
    public int write(int fd, MemorySegment buf, long offset, int length) {
        return Libc.write(fd, buf, offset, length);
    }

    @Override
    public int sendMany(int fd, MessageVector v, int first, int count) {
        return v.send(fd, first, count);
    }

    @Override
    public int receiveMany(int fd, MessageVector v, int count) {
        return v.receive(fd, count);
    }

    @Override
    public int peek(int fd, MemorySegment buf, long offset, int length) {
        return Sockets.recv(fd, buf, offset, length, Sockets.MSG_PEEK | Sockets.MSG_DONTWAIT);
    }

    @Override
    public int peekPast(int fd, MemorySegment skipArea, int skip, MemorySegment buf, long offset, int length) {
        return Sockets.peekPast(fd, skipArea, skip, buf, offset, length);
    }

    @Override
    public int discard(int fd, int length) {
        return Sockets.discard(fd, length);
    }

    @Override
    public int sendSpace(int fd) {
        return Sockets.sendSpace(fd);
    }

    @Override
    public int emptySendSpace(int fd) {
        return Sockets.emptySendSpace(fd);
    }

    @Override
    public int queued(int fd, boolean receive) {
        return Sockets.ioctlInt(fd, receive ? Sockets.SIOCINQ : Sockets.SIOCOUTQ);
    }


    @Override
    public long writev2(int fd, MemorySegment a, long offsetA, int lengthA, MemorySegment b, long offsetB, int lengthB) {
        return Libc.writev2(fd, a, offsetA, lengthA, b, offsetB, lengthB);
    }

    @Override
    public int recvFrom(int fd, MemorySegment buf, long offset, int length, long[] peer) {
        return Sockets.recvFrom(fd, buf, offset, length, peer);
    }

    @Override
    public int sendTo(int fd, MemorySegment buf, long offset, int length, long hi, long lo, int port) {
        return Sockets.sendTo(fd, buf, offset, length, hi, lo, port);
    }

    @Override
    public int soError(int fd) {
        return Sockets.soError(fd);
    }

    @Override
    public int setInt(int fd, int level, int option, int value) {
        return Sockets.setInt(fd, level, option, value);
    }

    @Override
    public int setLingerZero(int fd) {
        return Sockets.setLingerZero(fd);
    }

    @Override
    public int shutdown(int fd, int how) {
        return Sockets.shutdown(fd, how);
    }

    @Override
    public int close(int fd) {
        return Libc.close(fd);
    }
}
