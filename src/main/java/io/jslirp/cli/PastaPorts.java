package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.pasta.PastaOptions;

import java.util.List;

/**
 * One piece of what pasta's port options (-t, -u, -T, -U) set up around a served namespace. jslirp
 * pasta opens each of {@link #pieces()} in turn, once the tap, the engine and the namespace's
 * configuration (--config-net) are there and before it tells its caller it is ready; a piece
 * serves on the engine's loop from then on, and closes what it opened when the engine stops
 * ({@link Engine#atShutdown}). Each piece acts on the modes and options it is for and leaves the
 * others to the other pieces:
 * <ul>
 *   <li>{@link TapForwards}: -t and -u with port lists and "all", host → tap → namespace;</li>
 *   <li>{@link SplicePorts}: -T and -U (namespace loopback → host loopback), "auto" for all four
 *       (following the listening sockets of the other side), and host-loopback clients of -t
 *       spliced into the namespace; first, so that the forwards TapForwards opens splice too.</li>
 *   <li>{@link PastaControl}: -c, the control socket that lists and changes the rules at run time; last,
 *       once the tables are there.</li>
 * </ul>
 */
interface PastaPorts {
    /**
     * What a piece works with.
     *
     * @param options   the command line
     * @param engine    the engine serving the namespace: its loop (register, schedule; from its thread
     *                  only once it runs), its transport ({@code forward}, {@code unforward} of
     *                  {@link io.jslirp.forward.PortForward}s host → namespace)
     * @param netnsPath the namespace's file (/proc/PID/ns/net for a PID), for
     *                  {@link io.jslirp.sys.Namespaces#callInNetns} and
     *                  {@link io.jslirp.pasta.ListeningPorts#open}
     * @param network   the namespace's addresses as configured (the guest's own per IP version)
     * @param inbound   the HOST table: the -t and -u rules and their forwards ({@link TapForwards} fills it,
     *                  {@link PastaControl} changes it)
     */
    record Context(PastaOptions options, Engine engine, String netnsPath, PastaNetwork network, InboundRules inbound) {
        Context(PastaOptions options, Engine engine, String netnsPath, PastaNetwork network) {
            this(options, engine, netnsPath, network, new InboundRules());
        }
    }

    /**
     * Opens this piece's sockets and starts what it does by itself, on the calling (main) thread
     * before the engine runs. A failure that must end the setup throws: its message is the one
     * line the caller gets (pasta's words where pasta has them), and jslirp exits 1.
     */
    void open(Context context) throws Exception;

    /** The pieces jslirp pasta opens, in this order. */
    static List<PastaPorts> pieces() {
        return List.of(new SplicePorts(), new TapForwards(), new PastaControl());
    }
}
