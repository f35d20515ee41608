package dev.safetensors.s3;

import java.util.Base64;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * CRC32C as S3 writes it in {@code x-amz-checksum-crc32c}: the four bytes of the value, big-endian, in base64. A
 * multipart object's checksum is either of the full object (the same form) or composite: the CRC32C of the parts'
 * four raw bytes one after another, followed by {@code -N} for N parts.
 */
final class S3Crc32c {
    private S3Crc32c() {
    }

    /**
     * @param bytes  the array
     * @param offset where the bytes start
     * @param length how many
     * @return their CRC32C value
     */
    static int of(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /**
     * @param value a CRC32C value
     * @return it as S3 writes it
     */
    static String base64(int value) {
        return Base64.getEncoder().encodeToString(new byte[] {
                (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value});
    }

    /**
     * @param parts the parts' CRC32C values, in part order
     * @return the composite checksum S3 reports for an object of those parts, {@code BASE64-N}
     */
    static String composite(List<Integer> parts) {
        CRC32C crc = new CRC32C();
        for (int part : parts) {
            crc.update(new byte[] {(byte) (part >>> 24), (byte) (part >>> 16), (byte) (part >>> 8), (byte) part});
        }
        return base64((int) crc.getValue()) + "-" + parts.size();
    }
}
