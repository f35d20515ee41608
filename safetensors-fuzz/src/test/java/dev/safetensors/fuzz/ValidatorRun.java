package dev.safetensors.fuzz;

import dev.safetensors.ErrorCode;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.fuzz.reference.Verdict;

import java.io.IOException;

/**
 * One call of the validator, its result or failure sorted into a {@link Verdict}. This is where the first invariant
 * lives: for bytes held in memory, the only thing that may escape is a {@link SafetensorsException}; a plain
 * {@link IOException}, an unchecked exception or an {@link Error} fails the fuzz target.
 *
 * @param entryPoint which API was called, for messages
 * @param verdict    the verdict
 * @param header     the header when the verdict is valid
 * @param failure    the exception otherwise
 */
record ValidatorRun(String entryPoint, Verdict verdict, SafetensorsHeader header, SafetensorsException failure) {
    /** A validator call. */
    @FunctionalInterface
    interface HeaderCall {
        SafetensorsHeader read() throws IOException;
    }

    static ValidatorRun of(String entryPoint, HeaderCall call) {
        try {
            return new ValidatorRun(entryPoint, Verdict.VALID, call.read(), null);
        } catch (UnsupportedDtypeException e) {
            if (e.code() != ErrorCode.UNSUPPORTED_DTYPE) {
                throw new AssertionError(entryPoint + ": a header check threw an unsupported dtype with " + e.code(), e);
            }
            return new ValidatorRun(entryPoint, Verdict.UNSUPPORTED, null, e);
        } catch (SafetensorsException e) {
            if (e.code() == ErrorCode.UNSUPPORTED_DTYPE) {
                throw new AssertionError(entryPoint + ": UNSUPPORTED_DTYPE thrown as an invalid header", e);
            }
            return new ValidatorRun(entryPoint, Verdict.INVALID, null, e);
        } catch (IOException e) {
            throw new AssertionError(entryPoint + ": a plain IOException for bytes held in memory", e);
        } catch (Throwable t) {
            throw new AssertionError(entryPoint + ": " + t.getClass().getName() + " escaped the validator", t);
        }
    }

    /** @return the error code, or {@code null} when valid */
    ErrorCode code() {
        return failure == null ? null : failure.code();
    }

    @Override
    public String toString() {
        return entryPoint + " says " + verdict + (failure == null ? "" : " (" + failure.getMessage() + ")");
    }
}
