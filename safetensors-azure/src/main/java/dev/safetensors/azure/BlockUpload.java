package dev.safetensors.azure;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractObjectUpload;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One blob being written: its bytes are buffered up to a part; an object of one part is one Put Blob at commit,
 * a larger one is a Put Block per part, up to {@link UploadOptions#parallelism()} of them in flight, and a Put Block
 * List at commit. Both commits are conditional ({@code If-None-Match: *}) unless overwriting is allowed.
 *
 * <p>Memory: a buffer being filled and a block in flight each hold one of {@code parallelism + 1} permits, so
 * {@code parallelism} blocks upload while the next one fills, the upload holds at most
 * {@link UploadOptions#maxBufferedBytes()}, and {@link #write} blocks while all are taken. The executor has
 * {@code parallelism} threads and a queue with room for every permit: a block not yet started holds one.
 *
 * <p>Block ids are the base64 of 16 random bytes, the same for every block of this upload, and the block's index:
 * all of one length, as Azure requires of one blob's blocks, and never those of another writer of the same blob.
 *
 * <p>Abandoning the upload stops it and deletes nothing: Azure keeps uncommitted blocks out of the blob and out of
 * listings, drops them when another commit of the blob happens, and after seven days in any case. Not thread-safe,
 * as {@link ObjectUpload} says.
 */
final class BlockUpload extends AbstractObjectUpload {
    /** The most blocks one blob may have. */
    static final int MAX_BLOCKS = 50_000;
    private static final int UPLOAD_ID_BYTES = 16;
    private static final int FIRST_BUFFER_MAX = 1 << 20;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Location location;
    private final BlobRequests blob;
    private final UploadOptions options;
    private final byte[] uploadId = new byte[UPLOAD_ID_BYTES];
    private final Semaphore permits;
    private final List<String> blockIds = new ArrayList<>();
    private final AtomicReference<IOException> blockFailure = new AtomicReference<>();
    private ThreadPoolExecutor executor;
    private byte[] buffer;
    private int filled;

    BlockUpload(Location location, BlobRequests blob, UploadOptions options) {
        this.location = location;
        this.blob = blob;
        this.options = options;
        this.permits = new Semaphore(buffers(options));
        RANDOM.nextBytes(uploadId);
    }

    @Override
    protected void append(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            if (filled == options.partSize()) {
                stageBlock();
            }
            int take = Math.min(src.remaining(), options.partSize() - filled);
            reserve(take);
            src.get(buffer, filled, take);
            filled += take;
        }
    }

    /**
     * @return the blob; its checksum is {@code md5:BASE64} for a blob put in one request whose MD5 the service
     *         confirmed, and empty for a blob of blocks, whose whole MD5 the service neither computes nor reports
     *         (each block's was checked)
     */
    @Override
    protected WrittenObject publish() throws IOException {
        Optional<String> checksum;
        if (blockIds.isEmpty()) {
            checksum = blob.putBlob(buffer == null ? new byte[0] : buffer, filled, options.overwrite())
                    .map(md5 -> "md5:" + md5);
        } else {
            if (filled > 0) {
                stageBlock();
            }
            awaitBlocks();
            blob.putBlockList(blockIds, options.overwrite());
            checksum = Optional.empty();
        }
        buffer = null;
        if (executor != null) {
            // every block was answered: the threads end without an interrupt
            executor.shutdown();
        }
        return new WrittenObject(location, written(), checksum);
    }

    /** Stops the upload: blocks not yet sent are dropped, those in flight interrupted; uncommitted blocks expire. */
    @Override
    protected void discard() {
        buffer = null;
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    /** Makes room for {@code more} bytes in the buffer, taking a permit for a new buffer (waiting for one). */
    private void reserve(int more) throws IOException {
        if (buffer == null) {
            acquire(1);
            long hint = options.sizeHint();
            int size;
            if (!blockIds.isEmpty() || hint > options.partSize()) {
                size = options.partSize();
            } else if (hint >= 0) {
                size = (int) Math.max(hint, more);
            } else {
                // an object of unknown size may be small: its buffer starts small and grows to a part
                size = Math.min(options.partSize(), Math.max(FIRST_BUFFER_MAX, more));
            }
            buffer = new byte[size];
        } else if (filled + more > buffer.length) {
            int grown = (int) Math.min(options.partSize(), Math.max(filled + (long) more, 2L * buffer.length));
            buffer = Arrays.copyOf(buffer, grown);
        }
    }

    /** Sends the full buffer as the next block; its permit is released when the block is answered. */
    private void stageBlock() throws IOException {
        failIfABlockFailed();
        if (blockIds.size() == MAX_BLOCKS) {
            throw new StorageException(ErrorCode.WRITE_FAILED, blob.name(), "a blob has at most " + MAX_BLOCKS
                    + " blocks; at " + options.partSize() + " bytes each this object is larger: use larger parts");
        }
        String id = blockId(blockIds.size());
        blockIds.add(id);
        byte[] part = buffer;
        int length = filled;
        buffer = null;
        filled = 0;
        executor().execute(() -> {
            try {
                blob.putBlock(id, part, length);
            } catch (IOException e) {
                blockFailure.compareAndSet(null, e);
            } catch (RuntimeException e) {
                blockFailure.compareAndSet(null, new StorageException(ErrorCode.WRITE_FAILED, blob.name(),
                        "Put Block failed: " + e, e));
            } finally {
                permits.release();
            }
        });
    }

    /** Waits until every block sent is answered, then fails if one failed. */
    private void awaitBlocks() throws IOException {
        acquire(buffers(options));
        permits.release(buffers(options));
        failIfABlockFailed();
    }

    private void failIfABlockFailed() throws IOException {
        IOException failed = blockFailure.get();
        if (failed != null) {
            throw failed;
        }
    }

    private void acquire(int n) throws StorageException {
        try {
            permits.acquire(n);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorCode.INTERRUPTED, blob.name(), "interrupted while waiting for blocks"
                    + " to upload");
        }
    }

    private String blockId(int index) {
        ByteBuffer id = ByteBuffer.allocate(UPLOAD_ID_BYTES + Integer.BYTES).put(uploadId).putInt(index);
        return Base64.getEncoder().encodeToString(id.array());
    }

    /** @return the buffers an upload may hold: one per block in flight, and the one being filled */
    private static int buffers(UploadOptions options) {
        return options.parallelism() + 1;
    }

    private ThreadPoolExecutor executor() {
        if (executor == null) {
            int threads = options.parallelism();
            ThreadFactory daemons = task -> {
                Thread t = new Thread(task, "azure-put-block-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            // a block not yet started holds a permit, so the queue never needs more room than there are permits
            executor = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(buffers(options)), daemons);
            executor.allowCoreThreadTimeOut(true);
        }
        return executor;
    }
}
