package dev.safetensors.core.internal.header;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads and validates the header of a source with the fewest bytes and requests possible (rules 1 to 4):
 * one read of {@link Limits#prefetchBytes()} at offset 0, which also tells a remote source the object size, and
 * only when the header is longer, one more read of exactly the missing bytes. Nothing whose size comes from the
 * file is allocated before the declared length has been checked against the policy and against the file size.
 */
public final class HeaderReader {
    private HeaderReader() {
    }

    public static SafetensorsHeader read(RandomAccessSource source, Limits limits) throws IOException {
        String name = source.name();
        ByteBuffer prefix = ByteBuffer.allocate(limits.prefetchBytes());
        source.read(0, prefix);
        long size = source.size();
        long wanted = Math.min(prefix.capacity(), size);
        if (prefix.position() < wanted) {
            // a source may return fewer bytes than asked only at the end; tolerate one that does not, at a cost
            prefix.limit((int) wanted);
            source.readFully(prefix.position(), prefix);
        }
        byte[] bytes = prefix.array();
        int have = prefix.position();
        int length = declaredLength(name, bytes, have, size, limits);
        if (8 + length <= have) {
            return new HeaderParser(name, limits, bytes, 8, length, size).parse();
        }
        byte[] header = new byte[length];
        System.arraycopy(bytes, 8, header, 0, have - 8);
        source.readFully(have, ByteBuffer.wrap(header, have - 8, length - (have - 8)));
        return new HeaderParser(name, limits, header, 0, length, size).parse();
    }

    /** Validates a whole file held in memory, in place: the same rules, no copy of the header. */
    public static SafetensorsHeader parse(String name, byte[] file, Limits limits) throws IOException {
        int length = declaredLength(name, file, file.length, file.length, limits);
        return new HeaderParser(name, limits, file, 8, length, file.length).parse();
    }

    /** Validates the N header bytes of a file of {@code fileSize} bytes, held apart from their prefix. */
    public static SafetensorsHeader parseHeaderBytes(String name, byte[] header, long fileSize, Limits limits)
            throws IOException {
        byte[] prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(header.length).array();
        int length = declaredLength(name, prefix, 8, fileSize, limits);
        return new HeaderParser(name, limits, header, 0, length, fileSize).parse();
    }

    /**
     * Rules 1 to 4 and 6 on the first {@code have} bytes of a file of {@code size} bytes.
     *
     * @return the declared header length, known to be within the policy and the file
     */
    private static int declaredLength(String name, byte[] bytes, int have, long size, Limits limits)
            throws InvalidHeaderException {
        if (have < 8) {
            throw new InvalidHeaderException(ErrorCode.HEADER_TOO_SMALL, name, "the file has " + size
                    + " bytes, fewer than the 8-byte header length" + sniffed(bytes, have));
        }
        long declared = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        String what = Long.toUnsignedString(declared);
        if (declared < 0 || declared > limits.maxHeaderBytes()) {
            throw notSafetensorsOr(name, bytes, have, ErrorCode.HEADER_TOO_LARGE, "the declared header length "
                    + what + " is above the limit of " + limits.maxHeaderBytes() + " bytes");
        }
        if (declared > size - 8) {
            throw notSafetensorsOr(name, bytes, have, ErrorCode.HEADER_EXCEEDS_FILE, "the declared header length "
                    + what + " is more than the " + (size - 8) + " bytes that follow it (truncated download?)");
        }
        return (int) declared;
    }

    private static InvalidHeaderException notSafetensorsOr(String name, byte[] bytes, int have, ErrorCode code,
                                                           String detail) {
        String recognised = PrefixSniffer.recognise(bytes, have);
        return recognised != null
                ? new InvalidHeaderException(ErrorCode.NOT_SAFETENSORS, name, recognised)
                : new InvalidHeaderException(code, name, detail);
    }

    private static String sniffed(byte[] bytes, int have) {
        String recognised = PrefixSniffer.recognise(bytes, have);
        return recognised == null ? "" : "; " + recognised;
    }
}
