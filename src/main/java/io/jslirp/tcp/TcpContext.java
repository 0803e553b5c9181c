package io.jslirp.tcp;

import io.jslirp.util.BufferPool;

/**
 * What the connections of one address family share: their parameters, the pool their buffers
 * toward the host grow from, the output their segments toward the guest go to, and the credit of
 * windows open to the guest (shared with the other family's: one link).
 */
public record TcpContext(TcpConfig config, BufferPool buffers, TcpOutput out, WindowCredit credit) {
    /** Connections whose windows no credit limits. */
    public TcpContext(TcpConfig config, BufferPool buffers, TcpOutput out) {
        this(config, buffers, out, WindowCredit.unlimited());
    }
}
