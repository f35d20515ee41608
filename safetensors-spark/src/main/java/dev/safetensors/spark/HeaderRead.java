package dev.safetensors.spark;

import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.Safetensors;

import java.io.Closeable;
import java.io.IOException;

/**
 * The outcome of reading one file's header: the validated header or the failure, what the storage said about the
 * object, and, when tensor bytes are wanted, the source still open for them.
 */
final class HeaderRead implements Closeable {
    final String location;
    final SafetensorsHeader header;
    final IOException failure;
    final String version;
    private RandomAccessSource source;
    private SourceStatistics statistics;

    private HeaderRead(String location, SafetensorsHeader header, IOException failure, String version,
                       RandomAccessSource source, SourceStatistics statistics) {
        this.location = location;
        this.header = header;
        this.failure = failure;
        this.version = version;
        this.source = source;
        this.statistics = statistics;
    }

    /**
     * Reads the header of {@code location}: one request when the header fits the prefix read. Never throws: a
     * failure is part of the result.
     *
     * @param keepOpen whether the source stays open for tensor reads ({@link #close()} closes it)
     */
    static HeaderRead read(String location, Limits limits, boolean keepOpen) {
        RandomAccessSource source = null;
        SafetensorsHeader header = null;
        IOException failure = null;
        try {
            source = Locations.open(location);
            header = Safetensors.readHeader(source, limits);
        } catch (IOException e) {
            failure = e;
        }
        String version = source == null ? null : source.identity().versionOrEtag().orElse(null);
        HeaderRead read = new HeaderRead(location, header, failure, version, source, SourceStatistics.NONE);
        if (!keepOpen || failure != null) {
            read.close();
        }
        return read;
    }

    /** @return the open source, or {@code null} once closed or when opening failed */
    RandomAccessSource source() {
        return source;
    }

    long fileSize() {
        return header == null ? -1 : header.fileSize();
    }

    /** @return what reading this file cost; final once closed */
    SourceStatistics statistics() {
        return source == null ? statistics : source.statistics();
    }

    /** Closes the source, keeping its statistics; a failure to close a read-only source changes nothing read. */
    @Override
    public void close() {
        if (source != null) {
            statistics = source.statistics();
            try {
                source.close();
            } catch (IOException e) {
                // nothing was written, and the bytes already read were verified
            }
            source = null;
        }
    }
}
