package dev.safetensors;

/**
 * A valid file was asked for something it cannot give: a tensor it does not contain
 * ({@link ErrorCode#TENSOR_NOT_FOUND}), a tensor too large for the array or buffer asked for
 * ({@link ErrorCode#TOO_MANY_ELEMENTS}), a dtype that cannot be widened ({@link ErrorCode#NOT_FLOAT_READABLE} is an
 * {@link UnsupportedDtypeException} instead), or a slice outside the tensor's shape ({@link ErrorCode#INVALID_SLICE}).
 * The file itself is well formed: this is never an {@link InvalidHeaderException}.
 */
public final class TensorAccessException extends SafetensorsException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   {@link ErrorCode#TENSOR_NOT_FOUND}, {@link ErrorCode#TOO_MANY_ELEMENTS} or
     *               {@link ErrorCode#INVALID_SLICE}
     * @param source the source's name
     * @param tensor the tensor asked for
     * @param detail what cannot be given, and why
     */
    public TensorAccessException(ErrorCode code, String source, String tensor, String detail) {
        super(code, source, detail, tensor, -1);
    }
}
