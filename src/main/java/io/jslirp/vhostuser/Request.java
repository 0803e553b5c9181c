package io.jslirp.vhostuser;

/**
 * The front-end's requests, with their numbers from QEMU's vhost-user specification and the
 * payload each carries. Requests the backend does not serve are listed too, so a refusal can name
 * them; a number not listed is unknown.
 */
public enum Request {
    GET_FEATURES(1, Payload.NONE),
    SET_FEATURES(2, Payload.U64),
    SET_OWNER(3, Payload.NONE),
    RESET_OWNER(4, Payload.NONE),
    SET_MEM_TABLE(5, Payload.MEMORY),
    SET_LOG_BASE(6, Payload.LOG),
    SET_LOG_FD(7, Payload.NONE),
    SET_VRING_NUM(8, Payload.STATE),
    SET_VRING_ADDR(9, Payload.ADDR),
    SET_VRING_BASE(10, Payload.STATE),
    GET_VRING_BASE(11, Payload.STATE),
    SET_VRING_KICK(12, Payload.U64),
    SET_VRING_CALL(13, Payload.U64),
    SET_VRING_ERR(14, Payload.U64),
    GET_PROTOCOL_FEATURES(15, Payload.NONE),
    SET_PROTOCOL_FEATURES(16, Payload.U64),
    GET_QUEUE_NUM(17, Payload.NONE),
    SET_VRING_ENABLE(18, Payload.STATE),
    SEND_RARP(19, Payload.U64),
    NET_SET_MTU(20, Payload.U64),
    SET_BACKEND_REQ_FD(21, Payload.NONE),
    IOTLB_MSG(22, Payload.UNCHECKED),
    SET_VRING_ENDIAN(23, Payload.STATE),
    GET_CONFIG(24, Payload.CONFIG),
    SET_CONFIG(25, Payload.CONFIG),
    CREATE_CRYPTO_SESSION(26, Payload.UNCHECKED),
    CLOSE_CRYPTO_SESSION(27, Payload.UNCHECKED),
    POSTCOPY_ADVISE(28, Payload.UNCHECKED),
    POSTCOPY_LISTEN(29, Payload.UNCHECKED),
    POSTCOPY_END(30, Payload.UNCHECKED),
    GET_INFLIGHT_FD(31, Payload.UNCHECKED),
    SET_INFLIGHT_FD(32, Payload.UNCHECKED),
    GPU_SET_SOCKET(33, Payload.UNCHECKED),
    RESET_DEVICE(34, Payload.NONE),
    VRING_KICK(35, Payload.STATE),
    GET_MAX_MEM_SLOTS(36, Payload.NONE),
    ADD_MEM_REG(37, Payload.REGION),
    REM_MEM_REG(38, Payload.REGION),
    SET_STATUS(39, Payload.U64),
    GET_STATUS(40, Payload.NONE),
    GET_SHARED_OBJECT(41, Payload.UNCHECKED),
    SET_DEVICE_STATE_FD(42, Payload.UNCHECKED),
    CHECK_DEVICE_STATE(43, Payload.UNCHECKED);

    /** What a request's payload is, and so which sizes are valid for it. */
    public enum Payload {
        NONE, U64, STATE, ADDR, MEMORY, LOG, CONFIG, REGION,
        /** Of a request the backend never serves: its size is not checked, the request is refused anyway. */
        UNCHECKED
    }

    private static final Request[] BY_CODE = new Request[64];

    static {
        for (Request r : values()) BY_CODE[r.code] = r;
    }

    private final int code;
    private final Payload payload;

    Request(int code, Payload payload) {
        this.code = code;
        this.payload = payload;
    }

    public int code() {
        return code;
    }

    public Payload payload() {
        return payload;
    }

    /** The request of this number, or null when it is unknown. */
    public static Request of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
