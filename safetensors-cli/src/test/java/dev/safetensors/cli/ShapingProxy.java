package dev.safetensors.cli;

import dev.safetensors.spi.TimeSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A loopback TCP proxy that shapes what each client connection sends and receives, as a long network path or a
 * store throttling each connection would, and counts what it forwards: every chunk sent upstream held for a fixed
 * delay before it is forwarded ({@link #delaying}: a request, which arrives in one chunk, reaches the server that
 * much later), a connection's bytes paced to a rate one way or the other, each request or answer from its first
 * byte so that an idle connection earns no burst ({@link #throttling}: an upload's parts; {@link #throttlingAnswers}:
 * a download's ranges), or the requests a predicate matches held at a gate until that
 * many are held at once ({@link #holding}: proof, without a clock, that a client keeps that many requests in flight).
 * The waits are kept on the {@link TimeSource} given: the slow tier's throughput tests measure real time, so they
 * pass {@link TimeSource#SYSTEM}. Each connection gets two threads; closing the proxy stops them.
 *
 * <p>Requests are counted without parsing HTTP: a connection's request starts with the first chunk it sends after
 * an answer (or after it opened), and ends with the first chunk of the answer, so {@link #maxInFlight()} and
 * {@link #meanInFlight()} are the requests sent and not yet answered, as the server sees them.
 */
final class ShapingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "shaping-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Duration delay;
    private final long upRate;
    private final long downRate;
    private final TimeSource time;
    private final Gate gate;
    private final AtomicInteger connections = new AtomicInteger();
    /** Guarded by {@code this}: requests in flight now, the most at once, and their integral over time. */
    private int inFlight;
    private int maxInFlight;
    private long requests;
    private long firstNanos = -1;
    private long lastNanos;
    private double integral;

    private ShapingProxy(int upstreamPort, Duration delay, long upRate, long downRate, Gate gate, TimeSource time)
            throws IOException {
        this.delay = delay;
        this.upRate = upRate;
        this.downRate = downRate;
        this.gate = gate;
        this.time = time;
        listener = new ServerSocket(0, 256, InetAddress.getLoopbackAddress());
        threads.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                    connections.incrementAndGet();
                    Exchange exchange = new Exchange();
                    threads.execute(() -> pump(client, upstream, true, exchange));
                    threads.execute(() -> pump(upstream, client, false, exchange));
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    /**
     * @param upstreamPort the loopback port to forward to
     * @param delay        the delay added to every chunk sent upstream
     * @param time         where the delay is waited
     * @return a started proxy
     */
    static ShapingProxy delaying(int upstreamPort, Duration delay, TimeSource time) throws IOException {
        return new ShapingProxy(upstreamPort, delay, Long.MAX_VALUE, Long.MAX_VALUE, null, time);
    }

    /**
     * @param upstreamPort   the loopback port to forward to
     * @param bytesPerSecond the most each connection sends upstream per second
     * @param time           where the pace is kept
     * @return a started proxy
     */
    static ShapingProxy throttling(int upstreamPort, long bytesPerSecond, TimeSource time) throws IOException {
        return new ShapingProxy(upstreamPort, Duration.ZERO, bytesPerSecond, Long.MAX_VALUE, null, time);
    }

    /**
     * @param upstreamPort   the loopback port to forward to
     * @param bytesPerSecond the most each connection receives from upstream per second, each answer paced from
     *                       its first byte
     * @param time           where the pace is kept
     * @return a started proxy
     */
    static ShapingProxy throttlingAnswers(int upstreamPort, long bytesPerSecond, TimeSource time) throws IOException {
        return new ShapingProxy(upstreamPort, Duration.ZERO, Long.MAX_VALUE, bytesPerSecond, null, time);
    }

    /**
     * A proxy that holds each request whose request line {@code held} accepts until {@code parties} such requests
     * are held at once, then lets them and every later request through: {@link #gateOpened()} then says so. If
     * fewer arrive, {@code giveUp} (real time, only so that a client that never sends them does not hang the test)
     * lets the held ones through with the gate still shut.
     *
     * @param upstreamPort the loopback port to forward to
     * @param held         which requests the gate holds, by their request line ({@code GET /b/k HTTP/1.1})
     * @param parties      how many must be held at once to open it
     * @param giveUp       how long a held request waits at most
     * @return a started proxy
     */
    static ShapingProxy holding(int upstreamPort, Predicate<String> held, int parties, Duration giveUp)
            throws IOException {
        return new ShapingProxy(upstreamPort, Duration.ZERO, Long.MAX_VALUE, Long.MAX_VALUE,
                new Gate(held, parties, giveUp), TimeSource.SYSTEM);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** @return the connections clients opened */
    int connections() {
        return connections.get();
    }

    /** @return the requests forwarded */
    synchronized long requests() {
        return requests;
    }

    /** @return the most requests in flight at once */
    synchronized int maxInFlight() {
        return maxInFlight;
    }

    /** @return the requests in flight on average, from the first request's arrival to the last answer's start */
    synchronized double meanInFlight() {
        return lastNanos > firstNanos && firstNanos >= 0 ? integral / (lastNanos - firstNanos) : 0;
    }

    /** @return the counts since the last {@link #resetCounts()}, as the throughput reports print them */
    String flightReport() {
        return String.format(Locale.ROOT, "in flight: max %d, mean %.1f; %d requests, %d connections", maxInFlight(),
                meanInFlight(), requests(), connections());
    }

    /** Forgets the counts (not the connections' state): the next measurement starts from here. */
    synchronized void resetCounts() {
        requests = 0;
        maxInFlight = inFlight;
        firstNanos = -1;
        integral = 0;
        connections.set(0);
    }

    /** @return whether a {@link #holding} proxy's gate saw its parties held at once */
    boolean gateOpened() {
        return gate != null && gate.opened;
    }

    /** One client connection's state: whether a request was sent and its answer has not started. */
    private static final class Exchange {
        boolean awaiting;
    }

    /** @return whether this chunk starts a request: the first sent since the connection opened or was answered */
    private synchronized boolean sent(Exchange exchange) {
        if (exchange.awaiting) {
            return false;
        }
        exchange.awaiting = true;
        account();
        requests++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return true;
    }

    /** @return whether this chunk starts an answer */
    private synchronized boolean answered(Exchange exchange) {
        if (!exchange.awaiting) {
            return false;
        }
        exchange.awaiting = false;
        account();
        inFlight--;
        return true;
    }

    private void account() {
        long now = time.nanoTime();
        if (firstNanos < 0) {
            firstNanos = now;
        } else {
            integral += (double) inFlight * (now - lastNanos);
        }
        lastNanos = now;
    }

    private void pump(Socket from, Socket to, boolean upstream, Exchange exchange) {
        byte[] buffer = new byte[64 * 1024];
        long rate = upstream ? upRate : downRate;
        long start = 0;
        long sent = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                // each request, and each answer, is paced from its first chunk: an idle connection earns no burst
                boolean starts;
                if (upstream) {
                    starts = sent(exchange);
                    if (starts && gate != null) {
                        gate.pass(new String(buffer, 0, Math.min(n, 512), StandardCharsets.ISO_8859_1));
                    }
                    if (!delay.isZero()) {
                        time.sleep(delay);
                    }
                } else {
                    starts = answered(exchange);
                }
                if (rate != Long.MAX_VALUE) {
                    if (starts) {
                        start = time.nanoTime();
                        sent = 0;
                    }
                    // the bytes sent so far may leave at the rate: these go once that much time has passed
                    long wait = start + (long) (sent * 1e9 / rate) - time.nanoTime();
                    if (wait > 0) {
                        time.sleep(Duration.ofNanos(wait));
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
                sent += n;
            }
        } catch (IOException | InterruptedException e) {
            // the other side closed, or the proxy stopped
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        threads.shutdownNow();
    }

    /** Holds matching requests until {@code parties} are held at once; one use. */
    private static final class Gate {
        private final Predicate<String> held;
        private final CountDownLatch all;
        private final Duration giveUp;
        volatile boolean opened;
        /** Set once a held request gave up: the gate lets everything through from then on. */
        private volatile boolean broken;

        Gate(Predicate<String> held, int parties, Duration giveUp) {
            this.held = held;
            this.all = new CountDownLatch(parties);
            this.giveUp = giveUp;
        }

        void pass(String request) throws InterruptedException {
            String line = request.lines().findFirst().orElse("");
            if (broken || all.getCount() == 0 || !held.test(line)) {
                return;
            }
            all.countDown();
            if (all.await(giveUp.toMillis(), TimeUnit.MILLISECONDS)) {
                // a latch counted down by a request that gave up (it sets broken first) opened nothing
                opened = !broken;
            } else {
                broken = true;
                while (all.getCount() > 0) {
                    all.countDown(); // the others held go too
                }
            }
        }
    }
}
