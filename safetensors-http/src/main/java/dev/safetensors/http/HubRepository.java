package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;

/**
 * Finds what to inspect in a Hub repository {@code hf://OWNER/REPO[@REVISION]} (revision {@code main} by default),
 * as {@code huggingface_hub.get_safetensors_metadata} does: {@code model.safetensors} if it exists (checked with a
 * ranged GET of one byte), else {@code model.safetensors.index.json}, read whole (at most
 * {@value #MAX_INDEX_BYTES} bytes: one request when it fits {@value #FIRST_READ} bytes, two otherwise). The index is
 * returned unparsed, with the commit the Hub resolved the revision to, so every shard can be opened at that commit.
 *
 * <p>Throws {@link NoSuchFileException} when the repository holds neither file, {@link InvalidHeaderException}
 * ({@link ErrorCode#INVALID_INDEX}) for an empty or oversized index, and whatever {@link HttpSource} throws for the
 * requests. Thread-safe; all lookups share one {@link java.net.http.HttpClient}.
 */
public final class HubRepository {
    /** The single-file checkpoint name. */
    public static final String SINGLE_FILE = "model.safetensors";
    /** The sharded checkpoint index name. */
    public static final String INDEX_FILE = "model.safetensors.index.json";
    /** The largest index read. */
    public static final int MAX_INDEX_BYTES = 16 * 1024 * 1024;
    /** Bytes asked by the first read of the index: most indexes fit, so one request reads them. */
    static final int FIRST_READ = 256 * 1024;

    private final HttpTransport transport;

    /**
     * A lookup configured from {@code HF_ENDPOINT} and {@code HF_TOKEN}.
     *
     * @throws IllegalArgumentException if {@code HF_ENDPOINT} is not an http(s) URL
     */
    public HubRepository() {
        this(HttpSettings.fromEnvironment());
    }

    /** @param settings the endpoint, token, timeouts and retries to use */
    public HubRepository(HttpSettings settings) {
        this.transport = new HttpTransport(settings);
    }

    /**
     * @param repository {@code hf://OWNER/REPO[@REVISION]}
     * @return the checkpoint found, pinned to the resolved commit
     * @throws IOException if the reference is malformed or names a file, the repository holds no checkpoint, the
     *                     index is empty or too large, or a request fails
     */
    public HubCheckpoint locate(URI repository) throws IOException {
        HubPath repo = HubPath.parse(repository);
        if (!repo.path().isEmpty()) {
            throw new IOException(SourceNames.redact(repository) + ": names a file; expected hf://OWNER/REPO[@REVISION]");
        }
        SourceStatistics single;
        try (HttpSource source = HttpSource.open(transport, repo.file(SINGLE_FILE))) {
            try {
                source.size();
                return new HubCheckpoint(pinned(repo.file(SINGLE_FILE), source), null, source.statistics());
            } catch (NoSuchFileException absent) {
                single = source.statistics();
            }
        }
        try (HttpSource source = HttpSource.open(transport, repo.file(INDEX_FILE))) {
            byte[] index = readIndex(source);
            SourceStatistics both = single.plus(source.statistics());
            return new HubCheckpoint(pinned(repo.file(INDEX_FILE), source), index, both);
        } catch (NoSuchFileException absent) {
            NoSuchFileException e = new NoSuchFileException(SourceNames.redact(repository), null, "repository "
                    + repo.repository() + " at revision " + repo.revision() + " holds neither " + SINGLE_FILE
                    + " nor " + INDEX_FILE);
            e.initCause(absent);
            throw e;
        }
    }

    private static HubPath pinned(HubPath file, HttpSource source) {
        String commit = source.pinnedCommit();
        return commit == null ? file : file.at(commit);
    }

    private static byte[] readIndex(HttpSource source) throws IOException {
        ByteBuffer first = ByteBuffer.allocate(FIRST_READ);
        int n = source.read(0, first);
        long size = source.size();
        if (n <= 0 || size > MAX_INDEX_BYTES) {
            throw new InvalidHeaderException(ErrorCode.INVALID_INDEX, source.name(), n <= 0 ? "the index is empty"
                    : "the index has " + size + " bytes, more than the " + MAX_INDEX_BYTES + " allowed");
        }
        if (n == size) {
            return Arrays.copyOf(first.array(), n);
        }
        ByteBuffer all = ByteBuffer.allocate((int) size);
        all.put(first.flip());
        source.readFully(n, all);
        return all.array();
    }
}
