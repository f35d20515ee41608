package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.TimeSource;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The Hugging Face cache that {@code huggingface_hub} (and so transformers, diffusers and the {@code hf} command)
 * shares, laid out exactly as its {@code file_download.py} writes it:
 * <pre>
 * ROOT/models--NAMESPACE--REPO/            (datasets--..., spaces--...)
 *     blobs/ETAG                           the bytes, named by the LFS SHA-256, or the git blob id for other files
 *     snapshots/COMMIT/PATH -&gt; ../../blobs/ETAG   one relative symbolic link per file of a commit
 *     refs/BRANCH                          the commit the branch or tag pointed to, as text
 * </pre>
 * The root is {@code HF_HUB_CACHE}, else {@code HUGGINGFACE_HUB_CACHE}, else {@code HF_HOME/hub}, else
 * {@code XDG_CACHE_HOME/huggingface/hub}, else {@code ~/.cache/huggingface/hub}; {@code HF_HUB_OFFLINE} (or
 * {@code TRANSFORMERS_OFFLINE}) set to {@code 1}, {@code ON}, {@code YES} or {@code TRUE} means no request may be
 * made. Files this class links are found by {@code huggingface_hub}, and files it cached are found here.
 *
 * <p>Only what the cache's own layout names is taken as cached: a snapshot entry is a link to a blob of the same
 * repository's {@code blobs/} folder (or, where {@code huggingface_hub} could make no link, a regular file in the
 * snapshot), reached through no other link. An entry that leads anywhere else (a link to {@code /etc/passwd}, to
 * another repository's blob, a folder of the snapshot that is itself a link) is not cached, and a read through the
 * cache refuses it with {@link ErrorCode#NOT_A_FILE} without opening it.
 *
 * <p>A download locks each blob ({@link #lockBlob}) where {@code huggingface_hub} keeps its lock files,
 * {@code ROOT/.locks/models--NAMESPACE--REPO/ETAG.lock}, so two downloads into one cache never write one blob at once.
 *
 * <p>Immutable and thread-safe; the file system is shared with other processes, so every write is a new file renamed
 * into place, and a rename or link another process already made is taken as done.
 */
public final class HubCache {
    /**
     * How long {@link #lockBlob} waits by default for a blob another download holds: long enough for that download
     * to fetch a large shard, bounded so that a lock never released ends with {@link ErrorCode#TIMEOUT}.
     */
    public static final Duration DEFAULT_LOCK_WAIT = Duration.ofMinutes(30);

    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");
    /** A ref holds a commit id, 40 characters, perhaps with a line end; anything longer is no ref. */
    private static final int MAX_REF_BYTES = 256;
    private static final Set<String> TRUE = Set.of("1", "ON", "YES", "TRUE");

    private final Path root;
    private final boolean offline;
    private final Duration lockWait;
    private final TimeSource time;

    /**
     * A cache whose blob locks are waited for {@link #DEFAULT_LOCK_WAIT}.
     *
     * @param root    the cache root (the folder holding {@code models--...})
     * @param offline whether no request may be made ({@code HF_HUB_OFFLINE})
     */
    public HubCache(Path root, boolean offline) {
        this(root, offline, DEFAULT_LOCK_WAIT, TimeSource.SYSTEM);
    }

    /**
     * @param root     the cache root (the folder holding {@code models--...})
     * @param offline  whether no request may be made ({@code HF_HUB_OFFLINE})
     * @param lockWait how long {@link #lockBlob} waits for a blob another download holds
     * @param time     the clock that wait is measured on, and the pause between two attempts
     */
    public HubCache(Path root, boolean offline, Duration lockWait, TimeSource time) {
        this.root = Objects.requireNonNull(root, "root");
        this.offline = offline;
        this.lockWait = Objects.requireNonNull(lockWait, "lockWait");
        this.time = Objects.requireNonNull(time, "time");
    }

    /** @return the cache {@code huggingface_hub} would use in this process's environment */
    public static HubCache fromEnvironment() {
        return fromEnvironment(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    /**
     * @param env  the environment variables
     * @param home the user's home folder
     * @return the cache these variables name, as {@code huggingface_hub}'s {@code constants.py} resolves them
     */
    public static HubCache fromEnvironment(Map<String, String> env, Path home) {
        String hubCache = nonBlank(env.get("HF_HUB_CACHE")).or(() -> nonBlank(env.get("HUGGINGFACE_HUB_CACHE")))
                .orElse(null);
        Path root;
        if (hubCache != null) {
            root = Path.of(hubCache);
        } else {
            Path hfHome = nonBlank(env.get("HF_HOME")).map(Path::of).orElseGet(() -> nonBlank(env.get("XDG_CACHE_HOME"))
                    .map(Path::of).orElse(home.resolve(".cache")).resolve("huggingface"));
            root = hfHome.resolve("hub");
        }
        boolean offline = isTrue(env.get("HF_HUB_OFFLINE")) || isTrue(env.get("TRANSFORMERS_OFFLINE"));
        return new HubCache(root, offline);
    }

    /** @return the folder that holds one folder per repository */
    public Path root() {
        return root;
    }

    /** @return whether no request may be made ({@code HF_HUB_OFFLINE}) */
    public boolean offline() {
        return offline;
    }

    /**
     * @param revision a revision as written in an {@code hf://} location
     * @return whether it is a full commit id (40 lower-case hex digits), which names the same files forever
     */
    public static boolean isCommit(String revision) {
        return COMMIT.matcher(revision).matches();
    }

    /**
     * @param location an {@code hf://} location (a file or a repository)
     * @return its repository's folder, {@code ROOT/models--NAMESPACE--REPO} (or {@code datasets--}, {@code spaces--})
     * @throws IOException if the location is not a Hub location
     */
    public Path repositoryFolder(URI location) throws IOException {
        return folder(HubPath.parse(location));
    }

    /**
     * @param location an {@code hf://} location
     * @return the commit its revision names without asking the Hub: the revision itself when it is a commit, else
     *         what {@code refs/REVISION} holds; empty when neither says
     * @throws IOException if the location is not a Hub location or the ref cannot be read
     */
    public Optional<String> knownCommit(URI location) throws IOException {
        return knownCommit(HubPath.parse(location));
    }

    /**
     * @param file   an {@code hf://} file location
     * @param commit the commit to look in
     * @return the cached file, {@code snapshots/COMMIT/PATH}, if it is there with its blob; empty also when the
     *         entry leads anywhere but a blob of the repository (see the class description): it is not cached
     * @throws IOException if the location is not a Hub file location
     */
    public Optional<Path> cachedFile(URI file, String commit) throws IOException {
        HubPath at = HubPath.parse(file);
        try {
            return cachedBlob(at, commit).map(blob -> snapshot(at, commit));
        } catch (StorageException e) {
            if (e.code() == ErrorCode.NOT_A_FILE) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * Locks one blob against every other download into this cache, in this JVM or another process, as
     * {@code huggingface_hub} locks it: {@code ROOT/.locks/models--NAMESPACE--REPO/ETAG.lock}. Hold it while the
     * blob is fetched, verified, renamed into place and linked; a download that gets it after another finishes
     * finds the blob in place. A busy lock is waited for as long as this cache's lock wait
     * ({@link #DEFAULT_LOCK_WAIT} unless given).
     *
     * @param location an {@code hf://} location in the repository
     * @param etag     the blob's name
     * @return the lock, held until closed
     * @throws IOException {@link ErrorCode#TIMEOUT} naming the lock file if it stayed busy for the whole wait,
     *                     {@link ErrorCode#INTERRUPTED} if the thread was interrupted while waiting,
     *                     {@link ErrorCode#NOT_A_FILE} if a link or anything but a regular file is where the lock
     *                     file belongs; or if the location is not a Hub location or the ETag not a plain name
     */
    public HubBlobLock lockBlob(URI location, String etag) throws IOException {
        HubPath at = HubPath.parse(location);
        Path blob = blob(at, etag);
        Path lockFile = root.resolve(".locks").resolve(folder(at).getFileName()).resolve(blob.getFileName() + ".lock");
        return HubBlobLock.acquire(lockFile, lockWait, time);
    }

    /**
     * @param location an {@code hf://} location in the repository
     * @param etag     the blob's name: the LFS SHA-256, or the git blob id, without quotes
     * @return {@code blobs/ETAG} of the repository
     * @throws IOException if the location is not a Hub location or the ETag is not a plain name
     */
    public Path blob(URI location, String etag) throws IOException {
        return blob(HubPath.parse(location), etag);
    }

    /**
     * Records a downloaded file as {@code huggingface_hub} does: a relative symbolic link
     * {@code snapshots/COMMIT/PATH -> ../../blobs/ETAG} (replacing one there), and {@code refs/REVISION} holding the
     * commit when the location's revision is a branch or tag.
     *
     * @param file   the {@code hf://} file location, at the revision the user asked for
     * @param commit the commit the revision resolved to
     * @param etag   the blob's name
     * @return the snapshot path
     * @throws IOException if the links cannot be written
     */
    public Path link(URI file, String commit, String etag) throws IOException {
        HubPath at = HubPath.parse(file);
        checkCommit(file, commit);
        Path blob = blob(at, etag);
        Path pointer = snapshot(at, commit);
        Files.createDirectories(pointer.getParent());
        Path relative = pointer.getParent().relativize(blob);
        if (Files.isSymbolicLink(pointer) && Files.readSymbolicLink(pointer).equals(relative)) {
            // another download linked it already: nothing to replace
            if (!at.revision().equals(commit)) {
                writeRef(at, commit);
            }
            return pointer;
        }
        Path temporary = pointer.resolveSibling("." + pointer.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Files.createSymbolicLink(temporary, relative);
        Files.move(temporary, pointer, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (!at.revision().equals(commit)) {
            writeRef(at, commit);
        }
        return pointer;
    }

    /**
     * Records what a branch or tag resolved to, as {@code huggingface_hub} does: {@code refs/REVISION} holding the
     * commit, written atomically; nothing when the location's revision is itself a commit.
     *
     * @param location an {@code hf://} location at the revision the user asked for
     * @param commit   the commit it resolved to
     * @throws IOException if the ref cannot be written
     */
    public void recordRef(URI location, String commit) throws IOException {
        HubPath at = HubPath.parse(location);
        checkCommit(location, commit);
        if (!at.revision().equals(commit)) {
            writeRef(at, commit);
        }
    }

    /**
     * @param location an {@code hf://} location
     * @return its revision when that is a full commit id, which names the same files forever; else empty
     * @throws IOException if the location is not a Hub location
     */
    public static Optional<String> commitIn(URI location) throws IOException {
        String revision = HubPath.parse(location).revision();
        return isCommit(revision) ? Optional.of(revision) : Optional.empty();
    }

    /**
     * @param file an {@code hf://} file location
     * @return the file's path inside its repository ({@code unet/model.safetensors})
     * @throws IOException if the location is not a Hub file location
     */
    public static String pathInRepository(URI file) throws IOException {
        return HubPath.parse(file).path();
    }

    Path folder(HubPath at) {
        return root.resolve(at.type().plural + "--" + at.namespace() + "--" + at.name());
    }

    Optional<String> knownCommit(HubPath at) throws IOException {
        if (isCommit(at.revision())) {
            return Optional.of(at.revision());
        }
        return readRef(refFile(at)).map(String::trim).filter(HubCache::isCommit);
    }

    /**
     * @return the real path of the blob {@code snapshots/COMMIT/PATH} leads to, checked to be a regular file of this
     *         repository's {@code blobs/} (or a regular file of the snapshot itself); empty when the entry or its blob
     *         is missing
     * @throws StorageException {@link ErrorCode#NOT_A_FILE} when the entry leads anywhere else
     */
    Optional<Path> cachedBlob(HubPath at, String commit) throws IOException {
        if (at.path().isEmpty() || !isCommit(commit)) {
            return Optional.empty();
        }
        Path pointer = snapshot(at, commit);
        Optional<BasicFileAttributes> entry = attributes(pointer);
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        Path repository = folder(at);
        if (entry.get().isSymbolicLink()) {
            Path target = Files.readSymbolicLink(pointer);
            Path lexical = pointer.toAbsolutePath().getParent().resolve(target).normalize();
            Path blobs = repository.resolve("blobs").toAbsolutePath().normalize();
            if (!blobs.equals(lexical.getParent())) {
                throw notInCache(at, pointer, "links to " + target + ", which is not a blob of the repository's"
                        + " blobs/ folder");
            }
            return contained(at, pointer, repository.resolve("blobs").resolve(lexical.getFileName()));
        }
        // a copy where huggingface_hub could make no link (Windows without the privilege): a file of the snapshot
        return contained(at, pointer, pointer);
    }

    /**
     * @param at   a file location of the repository
     * @param etag the blob's name
     * @return the real path of {@code blobs/ETAG}, checked to be a regular file of this repository's {@code blobs/};
     *         empty when it is missing
     * @throws StorageException {@link ErrorCode#NOT_A_FILE} when it is a link, a folder or leads anywhere else
     */
    Optional<Path> cachedBlobNamed(HubPath at, String etag) throws IOException {
        Path blob = blob(at, etag);
        if (attributes(blob).isEmpty()) {
            return Optional.empty();
        }
        return contained(at, blob, blob);
    }

    /**
     * The real path {@code path} leads to, which must be {@code expected} (a path under the root) reached through no
     * link below the root's real path (links above it, a cache moved to another disk, are the user's own), and a
     * regular file; empty when it or its target is missing.
     */
    private Optional<Path> contained(HubPath at, Path path, Path expected) throws IOException {
        Path real;
        Path realExpected;
        try {
            real = path.toRealPath();
            realExpected = root.toRealPath().resolve(root.relativize(expected));
        } catch (NoSuchFileException e) {
            // a snapshot whose blob is missing is not cached
            return Optional.empty();
        }
        if (!real.equals(realExpected)) {
            throw notInCache(at, path, "leads to " + real + ", not to " + realExpected);
        }
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            throw notInCache(at, path, "is not a regular file");
        }
        return Optional.of(real);
    }

    /**
     * What a ref file holds, when it is a regular file of a commit's size, not a link: a ref leading elsewhere (a
     * large file, a device) is not read, and names no commit.
     */
    private static Optional<String> readRef(Path ref) throws IOException {
        Optional<BasicFileAttributes> a = attributes(ref);
        if (a.isEmpty() || !a.get().isRegularFile() || a.get().size() > MAX_REF_BYTES) {
            return Optional.empty();
        }
        return Optional.of(Files.readString(ref, StandardCharsets.UTF_8));
    }

    private static Optional<BasicFileAttributes> attributes(Path path) throws IOException {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static StorageException notInCache(HubPath at, Path path, String detail) {
        return new StorageException(ErrorCode.NOT_A_FILE, at.toUri().toString(), "the Hugging Face cache entry "
                + path + " " + detail + ": it is not taken as cached and is not read; delete it (a download puts"
                + " the file back)");
    }

    Path blob(HubPath at, String etag) throws IOException {
        if (etag.isEmpty() || etag.contains("/") || etag.contains("\\") || etag.startsWith(".")) {
            throw new StorageException(ErrorCode.SERVER_ERROR, at.toUri().toString(), "the ETag " + etag
                    + " cannot name a file in the cache");
        }
        return folder(at).resolve("blobs").resolve(etag);
    }

    private Path snapshot(HubPath at, String commit) {
        Path snapshots = folder(at).resolve("snapshots").resolve(commit);
        Path pointer = snapshots;
        for (String segment : at.path().split("/")) {
            pointer = pointer.resolve(segment);
        }
        return pointer;
    }

    private Path refFile(HubPath at) {
        Path ref = folder(at).resolve("refs");
        for (String segment : at.revision().split("/")) {
            ref = ref.resolve(segment);
        }
        return ref;
    }

    private void writeRef(HubPath at, String commit) throws IOException {
        if (at.revision().equals(".") || at.revision().contains("..")) {
            return;
        }
        Path ref = refFile(at);
        Files.createDirectories(ref.getParent());
        if (readRef(ref).filter(commit::equals).isPresent()) {
            return;
        }
        Path temporary = ref.resolveSibling(ref.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            Files.writeString(temporary, commit, StandardCharsets.UTF_8);
        } catch (FileAlreadyExistsException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, ref.toString(), "cannot write the ref", e);
        }
        Files.move(temporary, ref, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void checkCommit(URI file, String commit) throws IOException {
        if (!isCommit(commit)) {
            throw new StorageException(ErrorCode.SERVER_ERROR, file.toString(), "the Hub named no commit for "
                    + "this file (X-Repo-Commit): it cannot be placed in the cache");
        }
    }

    /**
     * @param etag an ETag header value, {@code "X"} or {@code W/"X"}
     * @return {@code X}, as {@code huggingface_hub}'s {@code _normalize_etag} names blobs
     */
    public static String normalizeEtag(String etag) {
        String e = etag.trim();
        if (e.startsWith("W/")) {
            e = e.substring(2);
        }
        if (e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"")) {
            e = e.substring(1, e.length() - 1);
        }
        return e;
    }

    private static Optional<String> nonBlank(String s) {
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
    }

    private static boolean isTrue(String s) {
        return s != null && TRUE.contains(s.trim().toUpperCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return "HubCache[" + root + (offline ? ", offline" : "") + "]";
    }
}
