package io.jslirp.tcp;

/** What a connection tells the host side of its flow; everything else the host side reads from the connection. */
public interface TcpHostSide {
    /**
     * The connection is over. With reset, the guest reset it (or it was aborted): the host peer
     * must see a reset too; otherwise both directions finished in order.
     */
    void closed(boolean reset);
}
