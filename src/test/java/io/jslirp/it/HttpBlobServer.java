package io.jslirp.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * HTTP server on host 127.0.0.1 (what the guest reaches as 10.0.2.2):
 * <ul>
 *   <li>{@code GET /blob?seed=S&size=N}: N bytes of {@link Blob} (seed S), with Content-Length;</li>
 *   <li>{@code PUT|POST /upload}: answers {@code "<sha256 hex> <byte count>\n"} of the body it read;</li>
 *   <li>{@code GET /small}: {@link #SMALL_BODY};</li>
 *   <li>{@code GET /step}: the word the test last gave {@link #step(String)} ("start" at first): how a
 *       test tells a script in a VM what to do next, the script asking again until the word changes.</li>
 * </ul>
 */
public final class HttpBlobServer implements AutoCloseable {
    public static final String SMALL_BODY = "hello from the jslirp kernel-peer tests\n";

    /** What the last upload delivered. */
    public record Upload(String sha256, long bytes) {}

    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final AtomicReference<Upload> lastUpload = new AtomicReference<>();
    private final AtomicReference<String> step = new AtomicReference<>("start");

    public HttpBlobServer() throws IOException {
        this(InetAddress.getLoopbackAddress());
    }

    /** On another loopback address: {@code ::1} is what the guest reaches as fd00::2. */
    public HttpBlobServer(InetAddress loopback) throws IOException {
        server = HttpServer.create(new InetSocketAddress(loopback, 0), 16);
        server.setExecutor(pool);
        server.createContext("/blob", this::blob);
        server.createContext("/upload", this::upload);
        server.createContext("/small", this::small);
        server.createContext("/step", ex -> text(ex, step.get() + "\n"));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** URL as the guest sees it: through the gateway. */
    public String guestUrl(String pathAndQuery) {
        return "http://" + Namespace.GATEWAY + ":" + port() + pathAndQuery;
    }

    /** What {@code GET /step} answers from now on. */
    public void step(String word) {
        step.set(word);
    }

    public Upload lastUpload() {
        return lastUpload.get();
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> m = new HashMap<>();
        String q = uri.getRawQuery();
        if (q == null) return m;
        for (String kv : q.split("&")) {
            int i = kv.indexOf('=');
            if (i > 0) m.put(kv.substring(0, i), kv.substring(i + 1));
        }
        return m;
    }

    private void blob(HttpExchange ex) throws IOException {
        try (ex) {
            Map<String, String> q = query(ex.getRequestURI());
            long seed = Long.parseLong(q.getOrDefault("seed", "1"));
            long size = Long.parseLong(q.getOrDefault("size", "1024"));
            ex.getResponseHeaders().add("Content-Type", "application/octet-stream");
            ex.sendResponseHeaders(200, size == 0 ? -1 : size);
            try (OutputStream out = ex.getResponseBody()) {
                Blob.write(out, seed, size);
            }
        }
    }

    private void upload(HttpExchange ex) throws IOException {
        try (ex) {
            MessageDigest md = Blob.sha256();
            long n = 0;
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = ex.getRequestBody()) {
                for (int r; (r = in.read(buf)) > 0; ) {
                    md.update(buf, 0, r);
                    n += r;
                }
            }
            Upload u = new Upload(HexFormat.of().formatHex(md.digest()), n);
            lastUpload.set(u);
            byte[] body = (u.sha256() + " " + u.bytes() + "\n").getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private void small(HttpExchange ex) throws IOException {
        text(ex, SMALL_BODY);
    }

    private static void text(HttpExchange ex, String text) throws IOException {
        try (ex) {
            byte[] body = text.getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
