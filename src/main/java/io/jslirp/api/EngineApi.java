package io.jslirp.api;

import io.jslirp.engine.Engine;
import io.jslirp.flow.FlowStatus;
import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/** The API of one running engine. */
public final class EngineApi implements ApiTarget {
    private final Engine engine;

    private EngineApi(Engine engine) {
        this.engine = engine;
    }

    /** Serves slirp4netns's API for engine at path until the engine stops, then removes the socket file. */
    public static void serve(Engine engine, Path path) {
        serve(engine, ApiSocket.listen(path));
    }

    /** As {@link #serve(Engine, Path)}, on a listener made by {@link ApiSocket#listen}. */
    public static void serve(Engine engine, io.jslirp.sys.UnixListener listener) {
        ApiSocket socket = new ApiSocket(engine.loop(), listener, new ApiRequests(new EngineApi(engine)));
        engine.atShutdown(socket::close);
    }

    @Override
    public HostForward open(PortForward forward) {
        return engine.transport().forward(forward);
    }

    @Override
    public void close(HostForward forward) {
        engine.transport().unforward(forward);
    }

    @Override
    public int guestAddress() {
        return engine.guestAddress();
    }

    @Override
    public void figures(ObjLongConsumer<String> sink) {
        engine.figures(sink);
    }

    @Override
    public void flows(Consumer<FlowStatus> sink) {
        engine.flows(sink);
    }
}
