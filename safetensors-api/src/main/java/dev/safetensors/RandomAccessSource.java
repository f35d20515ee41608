package dev.safetensors;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Map;

/**
 * Positional, read-only access to the bytes of one object: a local file, an S3 or GCS object, an HTTP resource.
 * This is the storage SPI: the header reader and tensor reads see storage only through it.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #read(long, ByteBuffer)} is one request (one ranged GET for a remote source). It transfers at
 *       least one byte unless {@code dst} has no room, fewer than {@code dst.remaining()} only at the end of the
 *       object, and returns -1 at or past the end.</li>
 *   <li>A remote source asks for exactly the bytes wanted, verifies that the answer is exactly those bytes
 *       ({@link RangeNotHonouredException} otherwise, without draining the rest), and pins the object's version
 *       from its first response so that a change is reported as {@link SourceChangedException}.</li>
 *   <li>Positional reads carry no cursor: implementations are safe for concurrent use by many threads.</li>
 *   <li>{@link #name()} is for messages and logs: it never contains credentials, tokens or signed query strings.</li>
 *   <li>Every source counts its requests and the bytes it fetched ({@link #statistics()}).</li>
 * </ul>
 */
public interface RandomAccessSource extends Closeable {

    /**
     * The size of the object in bytes. A remote source learns it from its first ranged response, so calling
     * this after a read costs nothing; before any read it may cost one metadata request.
     *
     * @return the size in bytes
     * @throws IOException if the size cannot be learned
     */
    long size() throws IOException;

    /**
     * Reads bytes starting at {@code position} into {@code dst}, in one request.
     *
     * @param position the object offset of the first byte, {@code >= 0}
     * @param dst      where the bytes go; its position advances by the count returned
     * @return the number of bytes read, fewer than asked only at the end of the object; -1 at or past the end
     * @throws IOException on a storage failure, a range that was not honoured or a changed object
     */
    int read(long position, ByteBuffer dst) throws IOException;

    /**
     * Fills {@code dst} from {@code position}, with as many {@link #read} calls as it takes.
     *
     * @param position the object offset of the first byte
     * @param dst      filled completely
     * @throws EOFException if the object ends before {@code dst} is full
     * @throws IOException  on a storage failure
     */
    default void readFully(long position, ByteBuffer dst) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            int n = read(at, dst);
            if (n < 0) {
                throw new EOFException(name() + ": object ends at byte " + at + ", " + dst.remaining()
                        + " more bytes were expected");
            }
            if (n == 0) {
                throw new IOException(name() + ": read at byte " + at + " returned no bytes");
            }
            at += n;
        }
    }

    /**
     * Opens a stream of exactly {@code length} bytes starting at {@code position}. A remote source makes one
     * request for the whole range and streams the body; closing the channel early aborts the request instead of
     * draining it. The default implementation issues {@link #read} calls as the channel is read.
     *
     * <p>The channel reports -1 after {@code length} bytes, and throws {@link EOFException} if the object ends
     * sooner. It is meant for one thread.
     *
     * @param position the object offset of the first byte, {@code >= 0}
     * @param length   the number of bytes, {@code >= 0}
     * @return a channel over the range; close it when done
     * @throws IOException if the request cannot be started
     */
    default ReadableByteChannel openRange(long position, long length) throws IOException {
        if (position < 0 || length < 0 || position > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("invalid range: position " + position + ", length " + length);
        }
        return new PositionalRangeChannel(this, position, length);
    }

    /**
     * @return a name for messages and logs, such as a path or {@code s3://bucket/key}; never a credential
     */
    String name();

    /**
     * @return how many requests this source has made and how many bytes it fetched, so far
     */
    SourceStatistics statistics();

    /**
     * Which version of the object this source reads, as far as it knows: what a backend reports, and the one thing
     * it overrides to report it.
     *
     * @return the identity; {@link SourceIdentity#NONE} (the default) when the source knows nothing beyond its name
     */
    default SourceIdentity identity() {
        return SourceIdentity.NONE;
    }

    /**
     * The {@link #identity()} as attributes, for manifests and logs, under the keys {@link SourceIdentity} declares
     * ({@link SourceIdentity#ETAG}, {@link SourceIdentity#VERSION}, {@link SourceIdentity#REPOSITORY},
     * {@link SourceIdentity#REVISION}, {@link SourceIdentity#LINKED_SHA256}: a digest the server reported, not one
     * computed locally). Derived, never overridden: a source reports what it knows through {@link #identity()}.
     * Values are never credentials.
     *
     * @return {@link SourceIdentity#toAttributes()} of {@link #identity()}; empty when nothing is known
     */
    default Map<String, String> attributes() {
        return identity().toAttributes();
    }
}
