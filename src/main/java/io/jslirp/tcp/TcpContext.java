package io.jslirp.tcp;

import io.jslirp.util.BufferPool;

/**
 * What the connections of one address family share: their parameters, the pool their buffers
 * toward the host grow from, and the output their segments toward the guest go to.
 */
public record TcpContext(TcpConfig config, BufferPool buffers, TcpOutput out) {
}
