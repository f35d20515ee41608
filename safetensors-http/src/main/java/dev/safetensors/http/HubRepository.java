package dev.safetensors.http;

import dev.safetensors.CheckpointLimits;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.RepositoryListing;
import dev.safetensors.Sha256;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.RetriedRequest;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.StatusMapping;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Lists the checkpoints of a Hub repository {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/FOLDER]} with
 * one request: {@code GET ENDPOINT/api/{models|datasets|spaces}/NAMESPACE/REPO/revision/REVISION}, whose answer
 * holds the commit the revision resolves to ({@code sha}) and every file of the repository at that commit
 * ({@code siblings}). That is fewer requests than either alternative: probing known names costs one request per
 * name tried (two to four per folder, most of them 404s), and the tree API ({@code /api/.../tree/REV}) needs one
 * request per folder and does not report the commit.
 *
 * <p>Layouts, as huggingface.js {@code parseSafetensorsMetadata} finds them, with every folder reported rather than
 * only the first found: in the root and in each first-level folder (diffusers components: {@code transformer/},
 * {@code unet/}, {@code text_encoder/}, {@code text_encoder_2/}, {@code vae/}, ...), the first present of
 * {@code model.safetensors}, {@code diffusion_pytorch_model.safetensors}, {@code model.safetensors.index.json},
 * {@code diffusion_pytorch_model.safetensors.index.json}. Order: the root, then {@code transformer/} and
 * {@code unet/} (the main module of a diffusion pipeline), then the other folders by name. A location with a folder
 * lists that folder alone. Every file is pinned to the listed commit, and each checkpoint names the
 * {@code config.json} beside it when there is one.
 *
 * <p>Throws {@link java.nio.file.NoSuchFileException} when the repository or revision does not exist,
 * {@link java.nio.file.AccessDeniedException} when it is gated or private, an
 * {@link dev.safetensors.InvalidLocationException} for a malformed location or a listing of more than
 * {@value #MAX_LISTING_CHECKPOINTS} checkpoints ({@link ErrorCode#INVALID_SOURCE}), and a {@link StorageException}
 * ({@link ErrorCode#SERVER_ERROR}) for an answer that is not a listing or exceeds {@value #MAX_LISTING_BYTES} bytes.
 * Every request is made under the settings' {@link RemotePolicy} ({@link RetriedRequest}): a 5xx, 408, 429 or a lost
 * connection is asked again, as reads are. Thread-safe; all listings share one {@link java.net.http.HttpClient}.
 */
public final class HubRepository {
    /**
     * The largest listing answer (or tree page) read, {@value} bytes: some 200,000 file names. A bound of this
     * provider's own protocol, so it lives here, beside the code that reads the answer.
     */
    public static final int MAX_LISTING_BYTES = 32 * 1024 * 1024;
    /**
     * The most checkpoints one listing may name ({@value}): a diffusion pipeline has about ten folders, so a
     * listing beyond this is refused with {@link ErrorCode#INVALID_SOURCE} before any shard is requested.
     */
    public static final int MAX_LISTING_CHECKPOINTS = CheckpointLimits.DEFAULT_MAX_CHECKPOINTS_PER_LISTING;
    private static final List<String> MAIN_MODULES = List.of("transformer", "unet");
    private static final String CONFIG = "config.json";

    private final HttpTransport transport;

    /**
     * A lister configured from {@code HF_ENDPOINT} and {@code HF_TOKEN}.
     *
     * @throws IllegalArgumentException if {@code HF_ENDPOINT} is not an http(s) URL
     */
    public HubRepository() {
        this(HttpSettings.fromEnvironment());
    }

    /** @param settings the endpoint, token, timeouts and retries to use */
    public HubRepository(HttpSettings settings) {
        this(new HttpTransport(settings));
    }

    HubRepository(HttpTransport transport) {
        this.transport = transport;
    }

    /**
     * @param location {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/FOLDER]}
     * @return the checkpoints found (none is not an error here), pinned to the resolved commit, with the request made
     * @throws IOException if the location is malformed, the repository or revision is missing or refused, or the
     *                     answer is not a listing
     */
    public RepositoryListing list(Location location) throws IOException {
        HubPath at = HubPath.parse(location.requireUri());
        String name = location.display();
        RequestCounter counter = new RequestCounter();
        counter.request();
        URI api = URI.create(transport.settings().hubEndpoint() + "/api/" + at.type().plural + "/" + at.namespace()
                + "/" + at.name() + "/revision/" + HubPath.encode(at.revision(), false));
        byte[] bytes = RetriedRequest.call(transport.settings().remotePolicy(), name, "the revision listing",
                attempt -> {
                    FinalResponse answer = transport.get(name, api, null, null, counter);
                    try (InputStream body = answer.body()) {
                        if (RemotePolicy.isRetryable(answer.status())) {
                            return RetriedRequest.Outcome.retryable(answer.status(), answer.header("Retry-After"),
                                    listingFailure(name, at, answer.status()));
                        }
                        if (answer.status() != 200) {
                            throw listingFailure(name, at, answer.status());
                        }
                        byte[] read = body.readNBytes(MAX_LISTING_BYTES + 1);
                        if (read.length > MAX_LISTING_BYTES) {
                            throw new StorageException(ErrorCode.SERVER_ERROR, name, "the listing has more than "
                                    + MAX_LISTING_BYTES + " bytes");
                        }
                        counter.bytes(read.length);
                        return RetriedRequest.Outcome.answer(read);
                    }
                });
        HubListingJson.Answer info = HubListingJson.parse(name, bytes);
        String commit = info.sha() != null && !info.sha().isEmpty() ? info.sha() : at.revision();
        Set<String> files = new TreeSet<>(info.files());
        return listing(name, at, commit, files, counter);
    }

    /**
     * Lists the checkpoints of a repository from a snapshot of the Hugging Face cache, without a request: the files
     * of {@code snapshots/COMMIT} are taken as the repository's files at that commit.
     *
     * @param location the repository location, as for {@link #list}
     * @param commit   the commit whose snapshot is read
     * @param snapshot the snapshot folder
     * @return the checkpoints found, pinned to the commit, at no request
     * @throws IOException if the folder cannot be walked or holds more than {@value #MAX_LISTING_CHECKPOINTS}
     *                     checkpoints
     */
    static RepositoryListing listSnapshot(Location location, String commit, java.nio.file.Path snapshot)
            throws IOException {
        HubPath at = HubPath.parse(location.requireUri());
        Set<String> files = new TreeSet<>();
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(snapshot, 3)) {
            for (java.util.Iterator<java.nio.file.Path> it = walk.iterator(); it.hasNext(); ) {
                java.nio.file.Path p = it.next();
                if (java.nio.file.Files.isRegularFile(p)) {
                    files.add(snapshot.relativize(p).toString().replace(java.io.File.separatorChar, '/'));
                }
            }
        }
        return listing(location.display(), at, commit, files, new RequestCounter());
    }

    private static RepositoryListing listing(String name, HubPath at, String commit, Set<String> files,
                                             RequestCounter counter) throws IOException {
        HubPath pinned = at.at(commit);
        List<RepositoryCheckpoint> found = new ArrayList<>();
        for (String folder : folders(at.path(), files)) {
            String prefix = folder.isEmpty() ? "" : folder + "/";
            Optional<RepositoryCheckpoint> checkpoint = checkpointIn(pinned, folder, prefix, files);
            if (checkpoint.isPresent()) {
                if (found.size() == MAX_LISTING_CHECKPOINTS) {
                    throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, name + ": the repository holds more"
                            + " than " + MAX_LISTING_CHECKPOINTS + " checkpoints; name one folder of it");
                }
                found.add(checkpoint.get());
            }
        }
        String repository = at.type().urlPrefix + at.repository();
        return new RepositoryListing(repository, commit, found, counter.snapshot());
    }

    /**
     * One {@code HEAD} of a file's resolve URL: the commit its revision resolves to and the name of its blob in the
     * Hugging Face cache, as {@code huggingface_hub} learns them before it downloads (or finds a file in its cache).
     *
     * @param file {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION]/PATH}
     * @return what the Hub says about the file
     * @throws IOException a {@link java.nio.file.NoSuchFileException} if the file is missing, an
     *                     {@link java.nio.file.AccessDeniedException} if refused, a {@link StorageException} if the
     *                     answer names no commit or ETag or the request fails
     */
    public HubFileMetadata metadata(Location file) throws IOException {
        HubPath at = HubPath.parse(file.requireUri());
        String name = file.display();
        if (at.path().isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, name + ": names a repository, not a file");
        }
        RequestCounter counter = new RequestCounter();
        URI url = at.resolveUrl(transport.settings().hubEndpoint());
        FinalResponse answer = RetriedRequest.call(transport.settings().remotePolicy(), name, "the HEAD of "
                + at.path(), attempt -> {
                    FinalResponse got = transport.head(name, url, counter);
                    if (RemotePolicy.isRetryable(got.status())) {
                        return RetriedRequest.Outcome.retryable(got.status(), got.header("Retry-After"),
                                failure("HEAD of " + at.path() + " in ", name, at, got.status()));
                    }
                    if (got.status() >= 400) {
                        throw failure("HEAD of " + at.path() + " in ", name, at, got.status());
                    }
                    return RetriedRequest.Outcome.answer(got);
                });
        int status = answer.status();
        String etag = answer.linkedEtag() != null ? answer.linkedEtag() : answer.header("ETag");
        if (answer.repoCommit() == null || etag == null) {
            throw new StorageException(ErrorCode.SERVER_ERROR, name, "the Hub's answer names no "
                    + (etag == null ? "ETag" : "commit") + " for the file (status " + status + ")");
        }
        String blob = HubCache.normalizeEtag(etag);
        String sizeHeader = answer.header("X-Linked-Size") != null ? answer.header("X-Linked-Size")
                : status >= 300 ? null : answer.header("Content-Length");
        long size = -1;
        try {
            size = sizeHeader == null ? -1 : Long.parseLong(sizeHeader.trim());
        } catch (NumberFormatException e) {
            size = -1;
        }
        return new HubFileMetadata(SourceNames.clip(answer.repoCommit()), blob, size,
                Sha256.canonical(answer.linkedEtag()));
    }

    private IOException listingFailure(String name, HubPath at, int status) {
        return failure("the listing of ", name, at, status);
    }

    private IOException failure(String what, String name, HubPath at, int status) {
        String where = what
                + at.type().urlPrefix + at.repository() + " at revision " + at.revision() + " answered " + status;
        return StatusMapping.failure(status, name, switch (StatusMapping.code(status)) {
            case NOT_FOUND -> where + ": no such repository, revision or file";
            case ACCESS_DENIED -> where + ": access denied; " + (transport.settings().hasToken()
                    ? "the token was refused or does not grant access"
                    : "a token may be needed: set HF_TOKEN or configure one in HttpSettings");
            default -> where;
        }, null);
    }

    private static Optional<RepositoryCheckpoint> checkpointIn(HubPath pinned, String folder, String prefix,
                                                               Set<String> files) {
        Optional<Location> config = files.contains(prefix + CONFIG)
                ? Optional.of(Location.of(pinned.file(prefix + CONFIG).toUri())) : Optional.empty();
        for (String name : RepositoryCheckpoint.FILE_NAMES) {
            if (files.contains(prefix + name)) {
                return Optional.of(new RepositoryCheckpoint(folder, Location.of(pinned.file(prefix + name).toUri()),
                        name.endsWith(Location.INDEX_SUFFIX), config));
            }
        }
        return Optional.empty();
    }

    /** @return the folders to look in: the one asked, or the root, the main modules, then the rest by name */
    private static List<String> folders(String asked, Set<String> files) {
        if (!asked.isEmpty()) {
            return List.of(asked);
        }
        Set<String> firstLevel = new TreeSet<>();
        for (String f : files) {
            int slash = f.indexOf('/');
            if (slash > 0 && f.indexOf('/', slash + 1) < 0) {
                firstLevel.add(f.substring(0, slash));
            }
        }
        List<String> order = new ArrayList<>();
        order.add("");
        for (String main : MAIN_MODULES) {
            if (firstLevel.remove(main)) {
                order.add(main);
            }
        }
        order.addAll(firstLevel);
        return order;
    }
}
