package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.Sources;

import java.io.IOException;

/**
 * Checks a {@code .safetensors} blob in Azure Blob Storage (or ADLS Gen2, or Azurite) and lists what it claims to
 * contain, reading only its header: one verified ranged GET when the header fits the 128 KiB prefix, two otherwise.
 *
 * <pre>java ... dev.safetensors.examples.InspectAzure az://CONTAINER/BLOB
 * java ... dev.safetensors.examples.InspectAzure abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH</pre>
 *
 * <p>This program names no Azure class: {@link Sources} finds the provider of {@code safetensors-azure} through
 * {@link java.util.ServiceLoader}, so the backend is a run-time dependency only. It is configured by the variables
 * Azure users already set: {@code AZURE_STORAGE_CONNECTION_STRING}, or {@code AZURE_STORAGE_ACCOUNT} with
 * {@code AZURE_STORAGE_KEY} or {@code AZURE_STORAGE_SAS_TOKEN}, and {@code AZURE_STORAGE_BLOB_ENDPOINT} for an
 * emulator or a sovereign cloud.
 */
public final class InspectAzure {
    private InspectAzure() {
    }

    /**
     * @param args the {@code az://}, {@code azure://}, {@code abfss://} or {@code abfs://} location
     * @throws IOException if no provider for the scheme is present, the blob cannot be read (missing, access denied,
     *                     a range answered wrongly, changed between reads), or it breaks a rule
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: InspectAzure az://CONTAINER/BLOB");
        }
        try (RandomAccessSource source = Sources.open(Location.parse(args[0]))) {
            HeaderListing.print(Safetensors.readHeader(source, Limits.STRICT));
            HeaderListing.printCost(source);
        }
    }
}
