package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.Slice;
import dev.safetensors.core.TensorSlice;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.s3.S3SourceProvider;

import java.io.IOException;
import java.net.URI;
import java.util.Arrays;

/**
 * Reads a range of rows of a tensor stored in S3 (or an S3-compatible store) without downloading the rest of the
 * object: the header costs one ranged GET, and a row range, one contiguous run of bytes, one more.
 *
 * <pre>java ... dev.safetensors.examples.SliceFromS3 s3://BUCKET/KEY TENSOR FIRST_ROW END_ROW [ENDPOINT]</pre>
 *
 * <p>The rows are {@code FIRST_ROW} (included) to {@code END_ROW} (excluded), as Python's
 * {@code get_slice(TENSOR)[FIRST_ROW:END_ROW]}; the tensor must be float-readable (F32, F16, BF16, ...). Credentials
 * and endpoint come as for {@link InspectS3}.
 */
public final class SliceFromS3 {
    private SliceFromS3() {
    }

    /**
     * @param args the {@code s3://} URI, the tensor, the first row, the end row, optionally an endpoint URL
     * @throws IOException if the object cannot be read, breaks a rule, lacks the tensor (TENSOR_NOT_FOUND) or the
     *                     rows are outside it (INVALID_SLICE)
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 4 || args.length > 5) {
            throw new IllegalArgumentException("usage: SliceFromS3 s3://BUCKET/KEY TENSOR FIRST_ROW END_ROW [ENDPOINT]");
        }
        S3ClientOptions options = args.length == 5
                ? S3ClientOptions.DEFAULT.withEndpoint(URI.create(args[4])).withPathStyle(true)
                : S3ClientOptions.DEFAULT;
        long first = Long.parseLong(args[2]);
        long end = Long.parseLong(args[3]);
        try (RandomAccessSource source = new S3SourceProvider(options).open(Location.parse(args[0]));
             SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, false)) {
            TensorSlice rows = file.slice(args[1], Slice.range(first, end));
            float[] values = rows.readFloat32();
            System.out.println(args[1] + "[" + first + ":" + end + "] of " + Arrays.toString(rows.tensor().shape())
                    + " -> shape " + Arrays.toString(rows.shape()) + ", " + values.length + " floats, first "
                    + Arrays.toString(Arrays.copyOf(values, Math.min(4, values.length))));
            HeaderListing.printCost(source);
        }
    }
}
