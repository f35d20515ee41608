package dev.safetensors.examples;

import dev.safetensors.SourceStatistics;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.Slice;
import dev.safetensors.core.TensorSlice;

import java.io.IOException;
import java.util.Arrays;

/**
 * Reads a sharded checkpoint as one set of tensors: {@link Checkpoint#open(String)} reads the index and every shard's
 * header and cross-checks them, then each read goes to the shard that holds the tensor, opened on first use.
 *
 * <pre>java ... dev.safetensors.examples.ReadAcrossShards [LOCATION [TENSOR [FIRST END]]]</pre>
 *
 * <p>{@code LOCATION} is a {@code *.safetensors.index.json} (a path or a URI), a single {@code .safetensors} file or
 * an {@code hf://} repository; remote ones need their backend on the class path. The tensor must be float-readable
 * (F32, F16, BF16, ...); it is read whole, then its first dimension from {@code FIRST} (included) to {@code END}
 * (excluded), as Python's {@code get_slice(TENSOR)[FIRST:END]}. Without arguments it reads
 * {@code layer0.norm.weight}, which the sample checkpoint in {@code data/sharded} holds in its second shard, and its
 * elements 1 to 3.
 */
public final class ReadAcrossShards {
    private ReadAcrossShards() {
    }

    /**
     * @param args optionally the location, a tensor, and the first and end index of its first dimension
     * @throws IOException if a file cannot be read, a header or the index breaks a rule, they disagree, the tensor
     *                     does not exist (TENSOR_NOT_FOUND), or the range is outside it (INVALID_SLICE)
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 3 || args.length > 4) {
            throw new IllegalArgumentException("usage: ReadAcrossShards [LOCATION [TENSOR [FIRST END]]]");
        }
        String location = SampleData.shardedArgument(args, 0);
        String name = args.length > 1 ? args[1] : "layer0.norm.weight";
        long first = args.length > 2 ? Long.parseLong(args[2]) : 1;
        long end = args.length > 2 ? Long.parseLong(args[3]) : 3;
        try (Checkpoint checkpoint = Checkpoint.open(location)) {
            System.out.println(checkpoint);
            for (TensorInfo t : checkpoint.tensors()) {
                System.out.printf("  %-20s %-5s %-7s in %s%n", t.name(), t.dtype(), Arrays.toString(t.shape()),
                        checkpoint.shardOf(t.name()));
            }
            // Opening read only the index and the headers; no shard is open yet.
            printCost("opened", checkpoint.statistics());

            // The first read of a tensor opens its shard: one more request reads its header again, to check it is the
            // one validated at open. Later reads of that shard reuse it. The tensor bytes are fetched with the header
            // when they lie within the first read (as in the small samples), else one ranged read per contiguous run.
            float[] values = checkpoint.readFloat32(name);
            System.out.println(name + " -> " + Arrays.toString(values));
            TensorSlice part = checkpoint.file(name).slice(name, Slice.range(first, end));
            System.out.println(name + "[" + first + ":" + end + "] -> shape " + Arrays.toString(part.shape()) + ", "
                    + Arrays.toString(part.readFloat32()));
            printCost("after the reads", checkpoint.statistics());
        }
    }

    private static void printCost(String when, SourceStatistics cost) {
        System.out.println("  cost " + when + ": " + cost.requests()
                + (cost.requests() == 1 ? " request, " : " requests, ") + cost.bytesRead() + " bytes");
    }
}
