package dev.safetensors.spark;

import java.io.Serializable;
import java.util.List;

/**
 * One file a task attempt wrote, as its commit message tells the driver.
 *
 * @param name        the file's name in the attempt's folder
 * @param rows        the rows it holds (samples: without padding; keyed: keys)
 * @param tensorBytes the sum of its tensors' bytes
 * @param tensors     its tensors in data order
 * @param keys        the keys it holds (keyed layout), else empty
 */
record WrittenFile(String name, long rows, long tensorBytes, List<WrittenTensor> tensors, List<String> keys)
        implements Serializable {
}
