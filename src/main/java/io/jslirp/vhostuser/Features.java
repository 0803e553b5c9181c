package io.jslirp.vhostuser;

/**
 * Feature bits: the device's (virtio 1.x and virtio-net), vhost-user's own bit in them, and the
 * protocol features negotiated apart. Bit numbers, not masks: {@link #bit} makes the mask.
 */
public final class Features {
    private Features() {}

    // virtio-net device features
    public static final int NET_CSUM = 0, NET_GUEST_CSUM = 1, NET_CTRL_GUEST_OFFLOADS = 2, NET_MTU = 3, NET_MAC = 5;
    public static final int NET_GUEST_TSO4 = 7, NET_GUEST_TSO6 = 8, NET_GUEST_ECN = 9, NET_GUEST_UFO = 10;
    public static final int NET_HOST_TSO4 = 11, NET_HOST_TSO6 = 12, NET_HOST_ECN = 13, NET_HOST_UFO = 14;
    public static final int NET_MRG_RXBUF = 15, NET_STATUS = 16, NET_CTRL_VQ = 17, NET_MQ = 22;
    public static final int NET_GUEST_USO4 = 54, NET_GUEST_USO6 = 55, NET_HOST_USO = 56;

    // transport and ring features (the ring's are io.jslirp.virtio.Virtqueue's F_ constants, repeated to list them together)
    public static final int RING_INDIRECT_DESC = 28, RING_EVENT_IDX = 29;
    public static final int VERSION_1 = 32;
    /** Logging of dirty pages for migration: not offered (migration is not supported). */
    public static final int LOG_ALL = 26;
    /** vhost-user's bit in the device features: the protocol features exist and rings start disabled. */
    public static final int PROTOCOL_FEATURES = 30;

    // vhost-user protocol features
    public static final int PROTOCOL_MQ = 0, PROTOCOL_LOG_SHMFD = 1, PROTOCOL_RARP = 2, PROTOCOL_REPLY_ACK = 3;
    public static final int PROTOCOL_NET_MTU = 4, PROTOCOL_BACKEND_REQ = 5, PROTOCOL_CROSS_ENDIAN = 6;
    public static final int PROTOCOL_CONFIG = 9, PROTOCOL_RESET_DEVICE = 13, PROTOCOL_CONFIGURE_MEM_SLOTS = 15, PROTOCOL_STATUS = 16;

    public static long bit(int n) {
        return 1L << n;
    }

    public static boolean has(long features, int n) {
        return (features & bit(n)) != 0;
    }
}
