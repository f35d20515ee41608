package dev.safetensors.core.internal.header;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.core.internal.header.CanonicalEntry;
import dev.safetensors.core.Safetensors;

/**
 * The canonical-entry fast path gives the general path's verdicts: each random entry is validated as written, which
 * takes the fast path when it can, and with one space after its name's colon, which the fast path never takes. The
 * outcome must be the same, with every error offset inside the entry one byte later in the spaced copy.
 */
class CanonicalEntryTest {
    private static final String[] NUMBERS = {"0", "00", "01", "7", "10", "1408", "12345678", "123456789",
        "1234567890123456", "12345678901234567", "123456789012345678", "1234567890123456789",
        "9223372036854775807", "9223372036854775808", "18446744073709551616", "99999999999999999999", "-1", "-0",
        "1.5", "1e3", "1E+2", "0.0", "+1", "1x", "", " 1", "true", "\"1\"", "null", "[1]", "0x10"};
    private static final String[] DTYPES = {"BF16", "F16", "F32", "F64", "U8", "I8", "BOOL", "I16", "U16", "I32",
        "U32", "I64", "U64", "F8_E4M3", "F8_E4M3FNUZ", "F4", "C64", "bf16", "BF", "BF16 ", "B\\u0046\\u00316", "",
        "XXXXXXXXXXXX", "F32\\n"};

    @Test
    void fastAndGeneralPathsAgreeOnRandomEntries() throws IOException {
        Random random = new Random(19);
        Limits[] policies = {Limits.STRICT, Limits.OFFICIAL,
            Limits.STRICT.toBuilder().maxRank(2).maxStringBytes(3).build(),
            Limits.STRICT.toBuilder().maxRank(0).build(), Limits.STRICT.toBuilder().maxDepth(3).build()};
        int fastAccepted = 0;
        for (int round = 0; round < 20_000; round++) {
            String entry = randomEntry(random);
            Limits limits = policies[random.nextInt(policies.length)];
            int padding = random.nextInt(12);
            String prefix = random.nextBoolean() ? "" : "\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},";
            Outcome asWritten = validate("{" + prefix + "\"t\":" + entry + "}", padding, limits);
            Outcome spaced = validate("{" + prefix + "\"t\": " + entry + "}", padding, limits);
            int entryStart = 1 + prefix.length() + 4;
            String context = entry + " under " + limits;
            assertEquals(spaced.code, asWritten.code, context);
            assertEquals(spaced.detail, asWritten.detail, context);
            assertEquals(spaced.tensor, asWritten.tensor, context);
            long expectedOffset = asWritten.offset >= entryStart ? asWritten.offset + 1 : asWritten.offset;
            assertEquals(spaced.offset, expectedOffset, context);
            if (asWritten.header != null) {
                assertEquals(spaced.header.tensors(), asWritten.header.tensors(), context);
                fastAccepted++;
            }
        }
        assertTrue(fastAccepted > 1000, "too few valid entries to compare values: " + fastAccepted);
    }

    @Test
    void theEntryShapeWritersProduceTakesTheFastPath() {
        byte[] entry = "{\"dtype\":\"BF16\",\"shape\":[1408,2048],\"data_offsets\":[12345678901,12351446069]}  "
                .getBytes(StandardCharsets.US_ASCII);
        CanonicalEntry canonical = new CanonicalEntry(entry, entry.length, 16, 1024);
        assertEquals(entry.length - 2, canonical.read(0));
        assertEquals(DType.BF16, canonical.dtype());
        assertEquals(2, canonical.rank());
        assertEquals(1408, canonical.dims()[0]);
        assertEquals(2048, canonical.dims()[1]);
        assertEquals(12345678901L, canonical.begin());
        assertEquals(12351446069L, canonical.end());
    }

    @Test
    void integersOfEveryLengthAndPositionAreReadExactly() throws IOException {
        for (int digits = 1; digits <= 19; digits++) {
            String n = "9123456789012345678".substring(0, digits);
            for (int padding = 0; padding < 20; padding++) {
                // valid but for the length, so the message shows the values as read
                Outcome offsets = validate("{\"t\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[" + n + "," + n
                        + "]}}", padding, Limits.STRICT);
                assertEquals(ErrorCode.LENGTH_MISMATCH, offsets.code, n);
                assertTrue(offsets.detail.contains("[" + n + ", " + n + ")"), offsets.detail);
                Outcome shape = validate("{\"t\":{\"dtype\":\"U8\",\"shape\":[" + n + "],\"data_offsets\":[0,1]}}",
                        padding, Limits.STRICT);
                assertTrue(shape.detail.contains(n), shape.detail);
            }
        }
    }

    private record Outcome(SafetensorsHeader header, ErrorCode code, String detail, String tensor, long offset) {
    }

    /** Validates {@code json} padded with spaces, in a file whose payload is what its last entry claims to end at. */
    private static Outcome validate(String json, int padding, Limits limits) throws IOException {
        byte[] header = (json + " ".repeat(padding)).getBytes(StandardCharsets.UTF_8);
        long payload = payloadFor(json);
        try {
            return new Outcome(Safetensors.parseHeader("t", header, 8 + header.length + payload, limits), null, null,
                    null, -1);
        } catch (SafetensorsException e) {
            return new Outcome(null, e.code(), e.detail(), e.tensor().orElse(null), e.headerOffset().orElse(-1));
        }
    }

    /** @return the second data offset of the last entry when it is a number, so that valid entries tile */
    private static long payloadFor(String json) {
        int at = json.lastIndexOf("\"data_offsets\":[");
        if (at < 0) {
            return 0;
        }
        int comma = json.indexOf(',', at);
        int close = json.indexOf(']', at);
        try {
            return comma < 0 || close < comma ? 0
                    : Math.max(0, Math.min(Long.MAX_VALUE / 2, Long.parseLong(json.substring(comma + 1, close))));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String randomEntry(Random random) {
        DType dtype = DType.values()[random.nextInt(DType.values().length)];
        String dtypeName = random.nextInt(4) == 0 ? DTYPES[random.nextInt(DTYPES.length)] : dtype.name();
        int rank = random.nextInt(10) == 0 ? random.nextInt(20) : random.nextInt(4);
        StringBuilder shape = new StringBuilder();
        long elements = 1;
        for (int d = 0; d < rank; d++) {
            long dim = 1 + random.nextInt(6);
            String text = random.nextInt(20) == 0 ? NUMBERS[random.nextInt(NUMBERS.length)] : Long.toString(dim);
            elements *= dim;
            shape.append(d == 0 ? "" : ",").append(text);
        }
        long length = elements * Math.max(1, DType.fromName(dtypeName).map(DType::byteSize).orElse(1));
        String begin = random.nextInt(10) == 0 ? NUMBERS[random.nextInt(NUMBERS.length)] : "0";
        String end = random.nextInt(10) == 0 ? NUMBERS[random.nextInt(NUMBERS.length)] : Long.toString(length);
        String offsets = random.nextInt(30) == 0 ? begin : random.nextInt(30) == 0 ? begin + "," + end + ",0"
                : begin + "," + end;
        String entry = "{\"dtype\":\"" + dtypeName + "\",\"shape\":[" + shape + "],\"data_offsets\":[" + offsets + "]}";
        return random.nextInt(8) == 0 ? mutate(entry, random) : entry;
    }

    /** One byte of the entry replaced, deleted or doubled. */
    private static String mutate(String entry, Random random) {
        int at = random.nextInt(entry.length());
        String chars = "{}[],:\"\\ 0129-.eE\u00e9";
        return switch (random.nextInt(3)) {
            case 0 -> entry.substring(0, at) + chars.charAt(random.nextInt(chars.length())) + entry.substring(at + 1);
            case 1 -> entry.substring(0, at) + entry.substring(at + 1);
            default -> entry.substring(0, at) + entry.charAt(at) + entry.substring(at);
        };
    }

}
