package dev.safetensors.s3;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Safetensors files for the tests: one U8 tensor {@code "weight"} of a chosen size, and a header padded with
 * trailing spaces (which the format allows) to a chosen length.
 */
final class SampleCheckpoint {
    private SampleCheckpoint() {
    }

    /**
     * @param headerBytes the length N of the header JSON
     * @param dataBytes   the size of the tensor data that follows
     * @return the first {@code 8 + N} bytes of the file: the length prefix and the header
     */
    static byte[] prefix(int headerBytes, long dataBytes) {
        String json = "{\"weight\":{\"dtype\":\"U8\",\"shape\":[" + dataBytes + "],\"data_offsets\":[0," + dataBytes
                + "]}}";
        if (json.length() > headerBytes) {
            throw new IllegalArgumentException("a header of " + headerBytes + " bytes cannot hold " + json);
        }
        byte[] header = Arrays.copyOf(json.getBytes(StandardCharsets.US_ASCII), headerBytes);
        Arrays.fill(header, json.length(), headerBytes, (byte) ' ');
        return ByteBuffer.allocate(8 + headerBytes).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(headerBytes).put(header).array();
    }

    /** @return a whole file whose tensor bytes count 0, 1, 2, ... */
    static byte[] file(int headerBytes, int dataBytes) {
        byte[] prefix = prefix(headerBytes, dataBytes);
        byte[] file = Arrays.copyOf(prefix, prefix.length + dataBytes);
        for (int i = 0; i < dataBytes; i++) {
            file[prefix.length + i] = (byte) i;
        }
        return file;
    }
}
