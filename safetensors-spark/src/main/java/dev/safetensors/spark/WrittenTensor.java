package dev.safetensors.spark;

import java.io.Serializable;

/**
 * A tensor of a written file.
 *
 * @param name  its name
 * @param dtype its dtype's name
 * @param shape its dimensions
 */
record WrittenTensor(String name, String dtype, long[] shape) implements Serializable {
}
