package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Overwrites a composed file's payload with bytes from the fuzzer, so that tensor reads see every bit pattern
 * (NaNs with payloads, subnormals, -0.0) rather than the composer's fixed pattern. Payload bytes are never part of
 * the header's validity, so the verdict is unchanged.
 */
final class PayloadFill {
    private PayloadFill() {
    }

    static void fill(byte[] file, FuzzedDataProvider d) {
        if (file.length < 8) {
            return;
        }
        long declared = ByteBuffer.wrap(file, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (declared < 0 || declared > file.length - 8L) {
            return;
        }
        int payloadOffset = 8 + (int) declared;
        byte[] fill = d.consumeBytes(file.length - payloadOffset);
        System.arraycopy(fill, 0, file, payloadOffset, fill.length);
    }
}
