package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.core.Safetensors;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The driver's side of a write to a store prefix ({@code s3://}, {@code gs://}, {@code az://}...), where there is no
 * rename: the tasks upload their files under final names of this job's own ({@link StoreJob}), and the job commit
 * uploads the entry point (the index or manifest) last, with a conditional create unless overwriting, so the prefix
 * holds a complete output exactly when the entry point names it; then it deletes what the entry point does not
 * name: objects of this job's dead attempts, and with overwrite the old content, entry points before data. Nothing
 * of the writer's own (staging objects, markers) is put under the prefix: the listing is the state. Why no staging
 * prefix and a server-side copy: the write SPI has no copy, and a copy would double the bytes moved.
 */
final class StoreOutput implements JobOutput {
    private static final System.Logger LOG = System.getLogger(StoreOutput.class.getName());
    private final Location prefix;
    private final ObjectWriterProvider writer;
    private final StoreJob job;
    private final boolean overwrite;

    private StoreOutput(Location prefix, ObjectWriterProvider writer, StoreJob job, boolean overwrite) {
        this.prefix = prefix;
        this.writer = writer;
        this.job = job;
        this.overwrite = overwrite;
    }

    /**
     * Checks the prefix, aborts the uploads a killed writer staged under it, and starts a job.
     *
     * @throws IOException {@link ErrorCode#UNSUPPORTED_SCHEME} when no installed backend writes the scheme;
     *                     {@link ErrorCode#ALREADY_EXISTS} when the prefix holds objects and the mode is not overwrite
     */
    static StoreOutput prepare(WriteOptions options, Location prefix) throws IOException {
        ObjectWriterProvider writer = SparkSources.registry().writer(prefix);
        if (!options.overwrite() && holdsObjects(prefix)) {
            throw notEmpty(prefix);
        }
        writer.abortIncomplete(prefix);
        return new StoreOutput(prefix, writer, StoreJob.start(prefix, options), options.overwrite());
    }

    /**
     * @return whether any object is under the prefix
     * @throws IOException {@link ErrorCode#UNSUPPORTED_SCHEME} when no installed backend writes the scheme
     */
    static boolean holdsObjects(Location prefix) throws IOException {
        SparkSources.registry().writer(prefix);
        try (Listing listing = listAll(prefix)) {
            return listing.hasNext();
        }
    }

    /**
     * @return every object under the prefix; a Hadoop folder that does not exist yet lists as empty, as a store
     *         prefix with nothing under it does (the write creates it)
     */
    private static Listing listAll(Location prefix) throws IOException {
        try {
            return SparkSources.registry().list(prefix, ListOptions.DEFAULT.withRecursive(true));
        } catch (dev.safetensors.SourceNotFoundException e) {
            if (HadoopFiles.handles(prefix)) {
                return new HadoopListing.Empty();
            }
            throw e;
        }
    }

    /** @return the refusal of a prefix that holds objects, as of a local output folder that holds files */
    static StorageException notEmpty(Location prefix) {
        return new StorageException(ErrorCode.ALREADY_EXISTS, prefix.display(), "exists and is not empty; write"
                + " with mode(\"overwrite\") to replace it");
    }

    /** @return the job's object names, for the tasks */
    StoreJob job() {
        return job;
    }

    @Override
    public String where(TaskFiles task, WrittenFile file) {
        return job.at(file.name()).text();
    }

    @Override
    public boolean keepsNames() {
        return true;
    }

    /** One ranged read of the object as the store holds it. */
    @Override
    public SafetensorsHeader header(String where) throws IOException {
        try (RandomAccessSource source = SparkSources.registry().open(Location.parse(where))) {
            return Safetensors.readHeader(source);
        }
    }

    @Override
    public void publish(Map<String, String> files, String lastName, byte[] last) throws IOException {
        List<ListEntry> present = list();
        List<String> names = new ArrayList<>();
        for (ListEntry e : present) {
            String name = name(e);
            names.add(name);
            if (!overwrite && !job.owns(name)) {
                // another writer put it there after the job started: nothing of it is replaced
                throw notEmpty(prefix);
            }
        }
        for (String name : files.keySet()) {
            if (!names.contains(name)) {
                throw new StorageException(ErrorCode.WRITE_FAILED, job.at(name).display(), "a committed task"
                        + " uploaded it, but the store no longer lists it");
            }
        }
        if (last != null) {
            upload(lastName, last);
        }
        // the new output is complete: from here on nothing of it is taken back, whatever fails
        List<ListEntry> stale = new ArrayList<>();
        for (ListEntry e : present) {
            String name = name(e);
            if (!files.containsKey(name) && !name.equals(lastName) && (overwrite || job.owns(name))) {
                stale.add(e);
            }
        }
        // an old entry point before the data it names: it never names a missing object
        stale.sort(java.util.Comparator.comparing(e -> e.location().fileName().endsWith(Location.FILE_SUFFIX)));
        for (ListEntry e : stale) {
            try {
                writer.delete(e.location());
            } catch (IOException failure) {
                LOG.log(System.Logger.Level.WARNING, "the write into " + prefix.display() + " is complete, but "
                        + e.location().display() + ", which it does not name, could not be deleted: " + failure);
            }
        }
    }

    private void upload(String name, byte[] bytes) throws IOException {
        Location at = job.at(name);
        UploadOptions options = UploadOptions.DEFAULT.withOverwrite(overwrite).withSizeHint(bytes.length);
        try (ObjectUpload upload = writer.create(at, options)) {
            upload.write(ByteBuffer.wrap(bytes));
            upload.commit();
        }
    }

    /** Deletes every object of this job: the committed tasks' and any an attempt left. */
    @Override
    public void abort() throws IOException {
        for (ListEntry e : list()) {
            if (job.owns(name(e))) {
                writer.delete(e.location());
            }
        }
    }

    private List<ListEntry> list() throws IOException {
        List<ListEntry> found = new ArrayList<>();
        try (Listing listing = listAll(prefix)) {
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                if (e.isFile() && e.location().text().startsWith(prefix.text())) {
                    found.add(e);
                }
            }
        }
        return found;
    }

    /** @return an entry's name below the prefix */
    private String name(ListEntry e) {
        return e.location().text().substring(prefix.text().length());
    }

    @Override
    public String display() {
        return prefix.display();
    }
}
