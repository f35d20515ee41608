package dev.safetensors.cli;

import dev.safetensors.cli.arguments.JobsOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The command keeps as many idle connections per host as it can have jobs ({@code http.maxConnections}, which the
 * JDK's connection cache reads once), unless the user chose a number. Alone: it sets and clears a JVM-wide system
 * property. The effect on the wire (connections opened at {@code --jobs 16} and 64) is measured by
 * {@link BackendThroughputTest} and {@link PrefixThroughputTest}.
 */
@Isolated
class IdleConnectionsTest {
    private String before;

    @BeforeEach
    void save() {
        before = System.getProperty("http.maxConnections");
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty("http.maxConnections");
        } else {
            System.setProperty("http.maxConnections", before);
        }
    }

    @Test
    void unsetItIsTheMostJobs() {
        System.clearProperty("http.maxConnections");
        Main.keepIdleConnections();
        assertEquals(Integer.toString(JobsOption.MAX_JOBS),
                System.getProperty("http.maxConnections"));
    }

    @Test
    void theUsersOwnNumberIsKept() {
        System.setProperty("http.maxConnections", "7");
        Main.keepIdleConnections();
        assertEquals("7", System.getProperty("http.maxConnections"));
    }
}
