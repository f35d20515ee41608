package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * <p>Immutable and thread-safe; the file system is shared with other processes, so every write is a new file renamed
 * into place.
 */
public final class HubCache {
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");
    private static final Set<String> TRUE = Set.of("1", "ON", "YES", "TRUE");

    private final Path root;
    private final boolean offline;

    /**
     * @param root    the cache root (the folder holding {@code models--...})
     * @param offline whether no request may be made ({@code HF_HUB_OFFLINE})
     */
    public HubCache(Path root, boolean offline) {
        this.root = Objects.requireNonNull(root, "root");
        this.offline = offline;
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
     * @return the cached file, {@code snapshots/COMMIT/PATH}, if it is there with its blob
     * @throws IOException if the location is not a Hub file location
     */
    public Optional<Path> cachedFile(URI file, String commit) throws IOException {
        return cachedFile(HubPath.parse(file), commit);
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
        Path ref = refFile(at);
        if (!Files.isRegularFile(ref)) {
            return Optional.empty();
        }
        String commit = Files.readString(ref, StandardCharsets.UTF_8).trim();
        return isCommit(commit) ? Optional.of(commit) : Optional.empty();
    }

    Optional<Path> cachedFile(HubPath at, String commit) {
        if (at.path().isEmpty() || !isCommit(commit)) {
            return Optional.empty();
        }
        Path pointer = snapshot(at, commit);
        // Files.isRegularFile follows the link: a snapshot whose blob is missing is not cached
        return Files.isRegularFile(pointer) ? Optional.of(pointer) : Optional.empty();
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
        if (Files.isRegularFile(ref) && Files.readString(ref, StandardCharsets.UTF_8).equals(commit)) {
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
