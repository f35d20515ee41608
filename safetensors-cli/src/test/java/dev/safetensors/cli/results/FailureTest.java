package dev.safetensors.cli.results;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A failure's code is an {@link ErrorCode} however it arose; the checks the command's own codes name are theirs. */
class FailureTest {
    @Test
    void whatIsNotAnIoExceptionIsAnInternalError() {
        Failure f = Failure.from(new IllegalStateException("a bug"), "m.safetensors");
        assertEquals(ErrorCode.INTERNAL_ERROR, f.code());
        assertEquals(Status.ERROR, f.status());
        assertNull(f.check());
    }

    @Test
    void anIoExceptionKeepsTheCodeItCarries() {
        IOException e = new StorageException(ErrorCode.ACCESS_DENIED, "s3://b/m.safetensors", "denied");
        assertEquals(ErrorCode.ACCESS_DENIED, Failure.from(e, "s3://b/m.safetensors").code());
    }

    @Test
    void theVerificationCodesNameTheChecksThatFindThem() {
        assertEquals(Check.SIZE, Check.failedBy(ErrorCode.SIZE_MISMATCH));
        assertEquals(Check.SHA256, Check.failedBy(ErrorCode.SHA256_MISMATCH));
        assertEquals(Check.MANIFEST, Check.failedBy(ErrorCode.NOT_IN_MANIFEST));
        assertEquals(Check.PREFIX, Check.failedBy(ErrorCode.HEADER_TOO_SMALL));
    }
}
