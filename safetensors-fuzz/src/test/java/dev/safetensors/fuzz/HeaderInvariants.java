package dev.safetensors.fuzz;

import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;

import java.math.BigInteger;

/**
 * What every accepted header guarantees its users, checked on the header object alone (not against the reference):
 * the tensors come in data order and tile the payload from 0 to its end, each one's byte length is its element
 * count times its dtype's bits over 8, and the file is exactly prefix, header and payload.
 */
final class HeaderInvariants {
    private HeaderInvariants() {
    }

    static void check(SafetensorsHeader h, long fileSize, Limits limits) {
        require(h.fileSize() == fileSize, "fileSize " + h.fileSize() + " is not the file's " + fileSize);
        require(h.fileSize() == 8 + h.headerLength() + h.payloadLength(), "fileSize != 8 + header + payload");
        require(h.payloadOffset() == 8 + h.headerLength(), "payloadOffset != 8 + headerLength");
        long next = 0;
        TensorInfo previous = null;
        for (TensorInfo t : h.tensors()) {
            require(previous == null || previous.begin() < t.begin()
                    || (previous.begin() == t.begin() && previous.end() <= t.end()), "tensors not in data order");
            require(t.begin() == next, t.name() + " begins at " + t.begin() + ", expected " + next);
            require(t.end() >= t.begin(), t.name() + " ends before it begins");
            require(limits.acceptedDtypes().contains(t.dtype()), t.name() + " has dtype " + t.dtype()
                    + " outside the policy");
            BigInteger count = BigInteger.ONE;
            for (long d : t.shape()) {
                count = count.multiply(BigInteger.valueOf(d));
            }
            require(count.equals(BigInteger.valueOf(t.elementCount())), t.name() + " elementCount "
                    + t.elementCount() + " is not the product of its shape, " + count);
            BigInteger bytes = count.multiply(BigInteger.valueOf(t.dtype().bits())).divide(BigInteger.valueOf(8));
            require(bytes.equals(BigInteger.valueOf(t.byteLength())), t.name() + " byteLength " + t.byteLength()
                    + " is not elementCount * bits / 8 = " + bytes);
            require(h.tensor(t.name()).orElse(null) == t, t.name() + " is not found by name");
            next = t.end();
            previous = t;
        }
        require(next == h.payloadLength(), "tensors end at " + next + ", payload has " + h.payloadLength());
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("accepted header breaks an invariant: " + what);
        }
    }
}
