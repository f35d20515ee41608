package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.Sources;

import java.io.IOException;

/**
 * Checks a {@code .safetensors} object in Google Cloud Storage and lists what it claims to contain, reading only its
 * header: one verified media GET when the header fits the 128 KiB prefix, two otherwise.
 *
 * <pre>java ... dev.safetensors.examples.InspectGcs gs://BUCKET/OBJECT[#GENERATION]</pre>
 *
 * <p>This program names no GCS class: {@link Sources} finds the {@code gs} provider of {@code safetensors-gcs}
 * through {@link java.util.ServiceLoader}, so the backend is a run-time dependency only (its jar and the Google
 * client's on the class path). Credentials are the application default ones; with {@code STORAGE_EMULATOR_HOST}
 * set (such as {@code 127.0.0.1:4443}) the emulator at that host is used without credentials.
 */
public final class InspectGcs {
    private InspectGcs() {
    }

    /**
     * @param args the {@code gs://} URI
     * @throws IOException if no provider for {@code gs} is present, the object cannot be read (missing, access
     *                     denied, gzip-encoded, a range answered wrongly), or it breaks a rule
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: InspectGcs gs://BUCKET/OBJECT[#GENERATION]");
        }
        try (RandomAccessSource source = Sources.open(Location.parse(args[0]))) {
            HeaderListing.print(Safetensors.readHeader(source, Limits.STRICT));
            HeaderListing.printCost(source);
        }
    }
}
