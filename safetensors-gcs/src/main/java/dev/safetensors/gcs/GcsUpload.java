package dev.safetensors.gcs;

import com.google.api.services.storage.model.StorageObject;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractObjectUpload;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * One object being written to Cloud Storage by {@link GcsObjectWriter}. Bytes collect in one chunk buffer; a full
 * chunk is sent only once a further byte arrives, so an object that fits in one chunk goes up at commit in a single
 * {@code uploadType=media} request, and a larger one through a {@link ResumableSession} started with its first
 * chunk, whose last chunk is sent at commit. The object's CRC32C is computed as the bytes arrive, sent with the
 * final request and compared with the one in the object resource Cloud Storage answers. Not thread-safe, as
 * {@link ObjectUpload} allows.
 */
final class GcsUpload extends AbstractObjectUpload {
    /** A resumable upload's chunks but the last are multiples of 256 KiB (Cloud Storage's rule). */
    private static final int CHUNK_GRANULE = 256 << 10;
    private static final int FIRST_CAPACITY = 64 << 10;

    private final ObjectRequests requests;
    private final GcsUri object;
    private final Location location;
    private final boolean overwrite;
    private final int chunkSize;
    private final CRC32C crc = new CRC32C();
    private byte[] buffer;
    private int filled;
    private ResumableSession session;

    GcsUpload(ObjectRequests requests, GcsUri object, Location location, UploadOptions options) {
        this.requests = requests;
        this.object = object;
        this.location = location;
        this.overwrite = options.overwrite();
        this.chunkSize = chunkSize(options.partSize());
        long hint = options.sizeHint();
        // an object known to be small holds no more than its size
        this.buffer = new byte[(int) Math.min(chunkSize, hint >= 0 ? Math.max(hint, 1) : FIRST_CAPACITY)];
    }

    /**
     * @param partSize the part size asked
     * @return the largest multiple of 256 KiB not above it
     */
    private static int chunkSize(int partSize) {
        return partSize - partSize % CHUNK_GRANULE;
    }

    @Override
    protected void append(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            if (filled == chunkSize) {
                sendChunk();
            }
            int take = Math.min(src.remaining(), chunkSize - filled);
            ensureCapacity(filled + take);
            src.get(buffer, filled, take);
            crc.update(buffer, filled, take);
            filled += take;
        }
    }

    @Override
    protected WrittenObject publish() throws IOException {
        String crc32c = crc32c();
        StorageObject stored = session == null
                ? requests.uploadWhole(object, location.display(), buffer, filled, !overwrite, crc32c)
                : session.send(buffer, filled, true, crc32c);
        session = null;
        buffer = null;
        verify(stored, crc32c);
        return new WrittenObject(location, written(), Optional.of("crc32c:" + crc32c));
    }

    /** Cancels the resumable session, if one was started and has not finished. */
    @Override
    protected void discard() throws IOException {
        buffer = null;
        if (session == null) {
            return;
        }
        ResumableSession cancelled = session;
        session = null;
        cancelled.cancel();
    }

    private void sendChunk() throws IOException {
        if (session == null) {
            session = ResumableSession.start(requests, object, location.display(), !overwrite);
        }
        session.send(buffer, filled, false, null);
        filled = 0;
    }

    private void ensureCapacity(int needed) {
        if (needed > buffer.length) {
            byte[] larger = new byte[(int) Math.min(chunkSize, Math.max(needed, 2L * buffer.length))];
            System.arraycopy(buffer, 0, larger, 0, filled);
            buffer = larger;
        }
    }

    /**
     * Compares what Cloud Storage says it holds with what was written. An object this upload created is deleted
     * when it differs (by its generation, so that nothing written since is touched); one it replaced is left, as
     * the old object is gone either way.
     */
    private void verify(StorageObject stored, String crc32c) throws IOException {
        BigInteger size = stored == null ? null : stored.getSize();
        String held = stored == null ? null : stored.getCrc32c();
        boolean sameSize = size != null && size.longValue() == written();
        if (sameSize && crc32c.equals(held)) {
            return;
        }
        IOException cleanup = null;
        String left = ", left as it is, since it replaced an object";
        if (!overwrite && stored != null && stored.getGeneration() != null) {
            try {
                requests.delete(object, location.display(), stored.getGeneration());
                left = ", and was deleted";
            } catch (IOException e) {
                cleanup = e;
                left = ", and could not be deleted: delete it";
            }
        }
        StorageException mismatch = sameSize
                ? new StorageException(ErrorCode.CHECKSUM_MISMATCH, location.display(), "Cloud Storage holds an object"
                        + " with CRC32C " + (held == null ? "(none stated)" : "'" + held + "'") + " where the bytes"
                        + " written have '" + crc32c + "'" + left)
                : new StorageException(ErrorCode.SIZE_MISMATCH, location.display(), "Cloud Storage holds "
                        + (size == null ? "an object of no stated size" : size + " bytes") + " where " + written()
                        + " were written" + left);
        if (cleanup != null) {
            mismatch.addSuppressed(cleanup);
        }
        throw mismatch;
    }

    private String crc32c() {
        byte[] value = ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
        return Base64.getEncoder().encodeToString(value);
    }
}
