package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.CheckpointMetadata;
import dev.safetensors.core.Safetensors;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HttpSourceProvider;

import java.io.IOException;
import java.net.URI;

/**
 * Checks a checkpoint on the Hugging Face Hub, or any file behind an HTTPS URL, reading only headers.
 *
 * <pre>
 * java ... dev.safetensors.examples.InspectHub hf://NAMESPACE/REPO[@REVISION]          a repository
 * java ... dev.safetensors.examples.InspectHub hf://NAMESPACE/REPO[@REVISION]/FILE     one file of it
 * java ... dev.safetensors.examples.InspectHub https://HOST/PATH/model.safetensors
 * </pre>
 *
 * <p>A repository is read in one call, {@link CheckpointMetadata#readAll}, as
 * {@code huggingface_hub.get_safetensors_metadata} reads it: one request lists the repository (and resolves the
 * revision to a commit), then each checkpoint it holds (the root's {@code model.safetensors} or its index and
 * shards, and each diffusers component's) is read at that commit and cross-checked against its index.
 * {@code HF_TOKEN} is sent to the Hub's origin only, never to the CDN it redirects to; {@code HF_ENDPOINT} names a
 * mirror.
 */
public final class InspectHub {
    private InspectHub() {
    }

    /**
     * @param args one {@code hf://}, {@code https://} or {@code http://} URI
     * @throws IOException if a request fails (401/403 say a token may be needed, 404 names repo, revision and
     *                     path), a range is answered wrongly, a file changes between reads, or anything breaks a rule
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: InspectHub hf://NAMESPACE/REPO[@REVISION][/FILE] | https://URL");
        }
        URI uri = URI.create(args[0]);
        if (!isRepository(uri)) {
            inspect(new HttpSourceProvider(HttpSettings.fromEnvironment()), Location.of(uri));
            return;
        }
        for (CheckpointMetadata m : CheckpointMetadata.readAll(args[0])) {
            System.out.println(m.files().identity().repository() + " at commit " + m.commit().orElse("?")
                    + (m.files().folder().isEmpty() ? "" : ", folder " + m.files().folder()) + ": "
                    + m.files().shards().size() + " file(s), " + m.tensorCount() + " tensors, " + m.totalParameters()
                    + " parameters (" + m.counting() + "), " + m.totalBytes() + " bytes of tensor data; "
                    + m.cost().requests() + " requests");
            for (SafetensorsHeader header : m.headers()) {
                HeaderListing.print(header);
            }
        }
    }

    /** An {@code hf://} location is a repository (or a folder of one) unless it names a .safetensors file. */
    private static boolean isRepository(URI uri) {
        return "hf".equalsIgnoreCase(uri.getScheme()) && !uri.getPath().endsWith(".safetensors");
    }

    private static void inspect(HttpSourceProvider files, Location file) throws IOException {
        try (RandomAccessSource source = files.open(file)) {
            HeaderListing.print(Safetensors.readHeader(source, Limits.STRICT));
            HeaderListing.printCost(source);
        }
    }
}
