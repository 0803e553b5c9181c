package io.jslirp.virtio;

/**
 * A refusal of what the driver wrote, with its {@link Fault}: checked, so the packet path cannot
 * forget that a hostile driver is possible. Thrown only on a refusal, never per packet otherwise.
 */
public final class VirtioException extends Exception {
    private final Fault fault;

    public VirtioException(Fault fault, String detail) {
        super(fault + ": " + detail, null, false, false);
        this.fault = fault;
    }

    public Fault fault() {
        return fault;
    }
}
