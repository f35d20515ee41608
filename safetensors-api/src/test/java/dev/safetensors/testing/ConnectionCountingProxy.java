package dev.safetensors.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on a loopback port in front of a test server, counting the connections clients open through it: a
 * client that reuses its connections opens few, one that drops a connection after each response opens one per
 * request. Bytes pass unchanged in both directions.
 */
public final class ConnectionCountingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    /**
     * Starts relaying.
     *
     * @param targetPort the loopback port of the server behind the relay
     * @throws IOException if no port can be bound
     */
    public ConnectionCountingProxy(int targetPort) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.acceptor = new Thread(this::acceptLoop, "connection-counting-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the port clients connect to */
    public int port() {
        return listener.getLocalPort();
    }

    /** @return how many connections clients have opened so far */
    public int connections() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                accepted.incrementAndGet();
                Socket server = new Socket();
                server.connect(target, 5_000);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                if (listener.isClosed()) {
                    return;
                }
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away: the relay of this connection ends with it
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "connection-counting-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
