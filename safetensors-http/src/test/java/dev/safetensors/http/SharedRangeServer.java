package dev.safetensors.http;

import dev.safetensors.fixtures.ScriptedRangeServer;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One {@link ScriptedRangeServer} for the test classes that only publish objects, each at a path of its own, and
 * never script nor reset it: started once per test JVM, on first use, and left to end with it (its threads are
 * daemons). A test that scripts answers starts its own.
 */
final class SharedRangeServer {
    private SharedRangeServer() {
    }

    private static final class Holder {
        static final ScriptedRangeServer SERVER = start();

        private static ScriptedRangeServer start() {
            try {
                return new ScriptedRangeServer();
            } catch (IOException e) {
                throw new UncheckedIOException("no loopback socket for the shared range server", e);
            }
        }
    }

    /** @return the server, started on first use */
    static ScriptedRangeServer get() {
        return Holder.SERVER;
    }
}
