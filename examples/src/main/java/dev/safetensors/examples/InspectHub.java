package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HttpSourceProvider;
import dev.safetensors.http.HubCheckpoint;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Checks a checkpoint on the Hugging Face Hub, or any file behind an HTTPS URL, reading only headers.
 *
 * <pre>
 * java ... dev.safetensors.examples.InspectHub hf://OWNER/REPO[@REVISION]        a repository
 * java ... dev.safetensors.examples.InspectHub hf://OWNER/REPO/FILE[@REVISION]   one file of it
 * java ... dev.safetensors.examples.InspectHub https://HOST/PATH/model.safetensors
 * </pre>
 *
 * <p>A repository is read as {@code huggingface_hub.get_safetensors_metadata} reads it: {@code model.safetensors} if
 * it exists, else {@code model.safetensors.index.json} and every shard it names, all pinned to the commit the Hub
 * resolved the revision to, then the index is cross-checked against the shards' headers. (This example reads the
 * shards one after the other; {@code bin/safetensors inspect --jobs N} reads them concurrently.)
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
            throw new IllegalArgumentException("usage: InspectHub hf://OWNER/REPO[/FILE][@REVISION] | https://URL");
        }
        URI uri = URI.create(args[0]);
        HttpSettings settings = HttpSettings.fromEnvironment();
        HttpSourceProvider files = new HttpSourceProvider(settings);
        if (!isRepository(uri)) {
            inspect(files, uri);
            return;
        }
        HubCheckpoint checkpoint = new HubRepository(settings).locate(uri);
        System.out.println(checkpoint.repository() + " at commit " + checkpoint.commit() + " (located with "
                + checkpoint.cost().requests() + " requests)");
        if (!checkpoint.isSharded()) {
            inspect(files, checkpoint.file());
            return;
        }
        ShardIndex index = ShardIndex.parse(checkpoint.file().toString(), checkpoint.index().orElseThrow());
        Map<String, SafetensorsHeader> headers = new LinkedHashMap<>();
        for (String shard : index.shards()) {
            // resolve() refuses shard names that would leave the repository (.., absolute paths, backslashes)
            headers.put(shard, inspect(files, checkpoint.resolve(shard)));
        }
        long tensorBytes = index.verifyAgainst(headers);
        System.out.println(index.shards().size() + " shards, " + index.weightMap().size() + " tensors, "
                + tensorBytes + " bytes of tensor data; the index agrees with every shard");
    }

    /** {@code hf://OWNER/REPO} and {@code hf://OWNER/REPO@REVISION} name a repository; a longer path names a file. */
    private static boolean isRepository(URI uri) {
        return "hf".equalsIgnoreCase(uri.getScheme()) && uri.getPath().lastIndexOf('/') == 0;
    }

    private static SafetensorsHeader inspect(HttpSourceProvider files, URI file) throws IOException {
        try (RandomAccessSource source = files.open(file)) {
            SafetensorsHeader header = Safetensors.readHeader(source, Limits.DEFAULT);
            HeaderListing.print(header);
            HeaderListing.printCost(source);
            return header;
        }
    }
}
